import { describe, expect, it } from 'vitest';
import { DEAD_SERVER_KEYS, frontier, renderIdleCapSweep, runIdleCapSweep } from '../src/idleCapSweep.js';

describe('the idle-cap sweep', () => {
  it('a longer idle cap sends a dead server fewer requests, and the fleet caller succeeds in fewer calls', async () => {
    const [naiveRow, short, long] = await runIdleCapSweep([30_000, 240_000], 1, 2);
    expect(naiveRow!.capMs).toBeUndefined();
    expect(naiveRow!.fleet.calls).toBeGreaterThan(0); // the same caller with the naive loop: the reference
    for (const key of DEAD_SERVER_KEYS) {
      expect(long!.requestsWhileDown[key]).toBeLessThan(short!.requestsWhileDown[key]!);
      expect(short!.requestsWhileDown[key]).toBeLessThan(naiveRow!.requestsWhileDown[key]!);
    }
    expect(long!.fleet!.successes).toBeLessThan(short!.fleet!.successes);
    expect(short!.fleet!.calls).toBeGreaterThan(0);
  });

  it('renders a row per cap with each count and its share of the naive loop', () => {
    const requests = (n: number) => Object.fromEntries(DEAD_SERVER_KEYS.map((k) => [k, n]));
    const table = renderIdleCapSweep([
      { requestsWhileDown: requests(200), fleet: { successes: 20, calls: 25 } },
      { capMs: 30_000, requestsWhileDown: requests(50), fleet: { successes: 10, calls: 40 } },
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('lone-dead-refused (naive 200)');
    expect(lines[0]).toContain('successful calls (naive 20)');
    expect(lines[2]).toBe(
      '| 30 s (default) | 50 (25.0%) | 50 (25.0%) | 50 (25.0%) | 50 (25.0%) | 10 (50.0%; 25.0% of 40 calls) |',
    );
  });

  it("finds no cap that keeps both unless one has the loop's successes within 10% of its requests", () => {
    const requests = (n: number) => Object.fromEntries(DEAD_SERVER_KEYS.map((k) => [k, n]));
    const naive = { requestsWhileDown: requests(100), fleet: { successes: 20, calls: 25 } };
    const fast = { capMs: 5_000, requestsWhileDown: requests(90), fleet: { successes: 20, calls: 30 } };
    const sparse = { capMs: 60_000, requestsWhileDown: requests(10), fleet: { successes: 12, calls: 30 } };
    const tradeOff = frontier([naive, fast, sparse]);
    expect(tradeOff?.both).toBeUndefined();
    expect(tradeOff?.best).toEqual({ cap: 5_000, successShare: 1, requestShare: 0.9 });
    expect(tradeOff?.withinShare.every((w) => w.cap === 60_000 && w.successShare === 0.6)).toBe(true);
    const ideal = { capMs: 90_000, requestsWhileDown: requests(8), fleet: { successes: 21, calls: 30 } };
    expect(frontier([naive, fast, ideal])?.both).toBe(90_000);
  });
});
