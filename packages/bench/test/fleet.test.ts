import { describe, expect, it } from 'vitest';
import { type FleetCell, type FleetRun, runFleetRun } from '../src/fleet.js';
import { renderFleet } from '../src/fleetReport.js';

const latency = { noStoreNs: 4_000, reachableNs: 5_000, unreachableNs: 4_100 };
const run = (requestsWhileDown: number, successes: number): FleetRun => ({
  requestsWhileDown,
  calls: 100,
  successes,
  allFailFastMs: 2,
});
const cells = (shared50: number, sharedSuccess: number): FleetCell[] =>
  [1, 10, 50].flatMap((replicas) => [
    { replicas, shared: false, runs: [run(20 * replicas, 16), run(22 * replicas, 16)] },
    { replicas, shared: true, runs: [run(replicas === 50 ? shared50 : 25, sharedSuccess), run(25, 17)] },
  ]);
const status = (text: string, target: string) => text.split('\n').find((l) => l.includes(target)) ?? '';

describe('the fleet benchmark', () => {
  it('a shared store keeps a fleet of 10 within twice the requests of one replica, and every replica fails fast', async () => {
    const alone = await runFleetRun(1, false, 1);
    const local = await runFleetRun(10, false, 1);
    const shared = await runFleetRun(10, true, 1);
    expect(local.requestsWhileDown).toBeGreaterThan(5 * alone.requestsWhileDown);
    expect(shared.requestsWhileDown).toBeLessThanOrEqual(2 * alone.requestsWhileDown);
    expect(shared.allFailFastMs).toBeLessThanOrEqual(1_000);
    expect(shared.calls).toBeGreaterThan(0);
  });

  it('the report marks each target met or not', () => {
    const good = renderFleet(cells(30, 17), latency);
    expect(status(good, 'N = 50, shared ≤ 2×')).toMatch(/1\.31× \| met/);
    expect(status(good, 'never below')).toMatch(/\| met/);
    expect(status(good, 'success path ≤ 5 µs')).toMatch(/\+1\.00 µs \| met/);
    const bad = renderFleet(cells(90, 14), latency);
    expect(status(bad, 'N = 50, shared ≤ 2×')).toMatch(/not met/);
    expect(status(bad, 'never below')).toMatch(/not met/);
    expect(bad).toMatch(/below the local-only run of the same seed: 1, 1, 1 of 2/);
  });
});
