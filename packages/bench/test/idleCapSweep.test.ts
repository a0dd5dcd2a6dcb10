import { describe, expect, it } from 'vitest';
import { DEAD_SERVER_KEYS, renderIdleCapSweep, runIdleCapSweep } from '../src/idleCapSweep.js';

describe('the idle-cap sweep', () => {
  it('a longer idle cap sends a dead server fewer requests, and the fleet caller succeeds in fewer calls', async () => {
    const [naiveRow, short, long] = await runIdleCapSweep([30_000, 240_000], 1, 2);
    expect(naiveRow!.capMs).toBeUndefined();
    expect(naiveRow!.fleet).toBeUndefined();
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
      { requestsWhileDown: requests(200) },
      { capMs: 30_000, requestsWhileDown: requests(50), fleet: { successes: 10, calls: 40 } },
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('lone-dead-refused (naive 200)');
    expect(lines[2]).toBe('| 30 s | 50 (25.0%) | 50 (25.0%) | 50 (25.0%) | 50 (25.0%) | 25.0% (10 / 40) |');
  });
});
