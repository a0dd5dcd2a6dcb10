import { describe, expect, it } from 'vitest';
import { goodputByPhase, goodputSeries, type PhaseGoodput, recovered, spikePhases } from '../src/goodput.js';
import { computeMetrics, diagnose, type Metrics } from '../src/metrics.js';
import type { OverheadResult } from '../src/overhead.js';
import type { QualityCell } from '../src/quality.js';
import type { CallTrace } from '../src/simulate.js';
import { checkTargets, type TargetCheck } from '../src/targets.js';

const base = computeMetrics([]);

function cell(scenario: string, policy: string, m: Partial<Metrics>, phases?: PhaseGoodput[]): QualityCell {
  const calls = m.calls ?? 1000;
  const succeeded = m.succeeded ?? Math.round((m.successRate ?? 0.9) * calls);
  return {
    scenario,
    policy,
    metrics: { ...base, calls, succeeded, successRate: succeeded / calls, ...m },
    diagnosis: diagnose([]),
    outcomes: { success: succeeded, 'ResilienceError(circuit_open)': calls - succeeded },
    successBySeed: [succeeded / calls],
    extra: {},
    wallMs: 0,
    ...(phases ? { phases } : {}),
  };
}

const scenarios = [
  { key: 'production', name: 'production mix' },
  { key: 'outage', name: 'hard outage' },
];

/** The three policies on both scenarios; `mcp` overrides mcp-resilience's metrics per scenario. */
function cells(mcp: Record<string, Partial<Metrics>>, others: Record<string, Partial<Metrics>> = {}) {
  const defaults: Partial<Metrics> = {
    succeeded: 900,
    retries: 100,
    successfulRetries: 95,
    retryEfficiency: 0.95,
    wastedRetries: 5,
    mttfFirstRequestRatio: 1,
  };
  return scenarios.flatMap(({ key }) => [
    cell(key, 'naive', {
      succeeded: 900,
      requestsWhileDown: key === 'outage' ? 1000 : 10,
      retries: 2000,
      successfulRetries: 100,
      wastedRetries: 1900,
      retryEfficiency: 0.05,
      ...others[`naive:${key}`],
    }),
    cell(key, 'oracle', { succeeded: 910, ...others[`oracle:${key}`] }),
    cell(key, 'mcp-resilience', { ...defaults, ...mcp[key] }),
  ]);
}

const find = (checks: TargetCheck[], key: string) => checks.find((c) => c.key === key)!;

describe('checkTargets', () => {
  it('success: within 0.5 pp of naive and 2 pp of the oracle passes; below either misses, saying which', () => {
    const pass = find(checkTargets(cells({ production: { succeeded: 896 } }), scenarios), 'success');
    expect(pass.results.map((r) => r.status)).toEqual(['met', 'met']);
    const belowNaive = find(checkTargets(cells({ outage: { succeeded: 894 } }), scenarios), 'success');
    expect(belowNaive.status).toBe('missed');
    expect(belowNaive.results[1]).toMatchObject({ scenario: 'outage', status: 'missed' });
    expect(belowNaive.results[1]!.why).toMatch(/below the naive loop/);
    expect(belowNaive.results[1]!.why).toMatch(/circuit_open 106/);
    const belowOracle = find(
      checkTargets(cells({}, { 'oracle:outage': { succeeded: 925 } }), scenarios),
      'success',
    );
    expect(belowOracle.results[1]!.why).toMatch(/below the oracle/);
    expect(belowOracle.results[1]!.why).not.toMatch(/naive/);
  });

  it('down requests: only where the naive loop sends ≥ 50, at most 10% of its requests', () => {
    const met = find(checkTargets(cells({ outage: { requestsWhileDown: 100 } }), scenarios), 'down-requests');
    expect(met.results.map((r) => r.scenario)).toEqual(['outage']);
    expect(met.status).toBe('met');
    const missed = find(
      checkTargets(cells({ outage: { requestsWhileDown: 101 } }), scenarios),
      'down-requests',
    );
    expect(missed.status).toBe('missed');
    expect(missed.results[0]!.value).toContain('101 vs 1000');
  });

  it('retry efficiency: ≥ 0.9 on production, ≥ 0.8 elsewhere, insufficient below 30 retries', () => {
    const checks = checkTargets(
      cells({
        production: { retries: 100, successfulRetries: 89, retryEfficiency: 0.89 },
        outage: { retries: 100, successfulRetries: 81, retryEfficiency: 0.81 },
      }),
      scenarios,
    );
    expect(find(checks, 'efficiency').results.map((r) => r.status)).toEqual(['missed', 'met']);
    const few = checkTargets(
      cells({ outage: { retries: 29, successfulRetries: 0, retryEfficiency: 0 } }),
      scenarios,
    );
    expect(find(few, 'efficiency').results[1]!.status).toBe('insufficient data');
  });

  it("names the oracle's efficiency when even the oracle is below the target", () => {
    const checks = checkTargets(
      cells(
        { outage: { retries: 100, successfulRetries: 50, retryEfficiency: 0.5 } },
        { 'oracle:outage': { retries: 100, successfulRetries: 70, retryEfficiency: 0.7 } },
      ),
      scenarios,
    );
    expect(find(checks, 'efficiency').results[1]!.why).toMatch(/oracle.*reaches 0\.70/);
  });

  it('wasted retries on the production mix: 95% fewer than naive', () => {
    expect(
      find(checkTargets(cells({ production: { wastedRetries: 95 } }), scenarios), 'wasted-retries').status,
    ).toBe('met');
    expect(
      find(checkTargets(cells({ production: { wastedRetries: 96 } }), scenarios), 'wasted-retries').status,
    ).toBe('missed');
  });

  it('MTTF: the ratio over calls whose first request got the error', () => {
    const checks = checkTargets(
      cells({
        production: { mttfFirstRequestRatio: 1.1, mttfRatio: 5 },
        outage: { mttfFirstRequestRatio: 1.2 },
      }),
      scenarios,
    );
    expect(find(checks, 'mttf').results.map((r) => r.status)).toEqual(['met', 'missed']);
  });

  it('a miss that waiting causes is set against the fail-fast what-if: what not waiting would cost', () => {
    const missed = { outage: { mttfFirstRequestRatio: 18, failedTimeMs: 6_000 } };
    const naiveTime = { 'naive:outage': { failedTimeMs: 10_000 } };
    const ff = (m: Partial<Metrics>) => cell('outage', 'mcp-resilience:fail-fast', m);
    const why = (extra: QualityCell[], key: string) =>
      find(checkTargets([...cells(missed, naiveTime), ...extra], scenarios), key).results[1]!.why!;

    // not waiting meets both targets, at a success below the floor (naive 90% − 0.5 pp = 89.5%, above the oracle 91% − 2 pp)
    const losing = ff({ succeeded: 700, mttfFirstRequestRatio: 1, failedTimeMs: 100 });
    expect(why([losing], 'mttf')).toMatch(
      /Failing fast would meet it and lose calls: .* 1\.00×, but success falls to 70\.00%, below the 89\.50%/,
    );
    expect(why([losing], 'failed-time')).toMatch(
      /failed calls cost 1\.0% of the loop's, but success falls to 70\.00%/,
    );
    // within the floor, it says so: the defaults would then be the worse choice here
    expect(why([ff({ succeeded: 895, mttfFirstRequestRatio: 1 })], 'mttf')).toMatch(
      /would meet it here .* within the success target/,
    );
    // not waiting does not meet it either (the calls waited for a Retry-After)
    expect(why([ff({ succeeded: 895, mttfFirstRequestRatio: 12 })], 'mttf')).toMatch(
      /does not meet it either .*: 12\.00×/,
    );
    // a run without the what-if says nothing of it
    expect(why([], 'mttf')).not.toMatch(/[Ff]ailing fast/);
    expect(
      find(checkTargets(cells(missed, naiveTime), scenarios), 'failed-time').results[1]!.why,
    ).not.toMatch(/fast/);
  });

  it('overload: more successful calls than naive and a recovery after the spike', () => {
    const phase = (p: PhaseGoodput['phase'], successRate: number, p50Ms = 200): PhaseGoodput => ({
      phase: p,
      calls: 100,
      succeeded: 100 * successRate,
      successRate,
      goodput: successRate * 10,
      p50Ms,
      p99Ms: 2 * p50Ms,
    });
    const scenarioList = [...scenarios, { key: 'overload', name: 'overload spike' }];
    const make = (mcpAfter: number, mcpSucceeded: number, mcpAfterP50 = 200) => [
      ...cells({}),
      cell('overload', 'naive', { succeeded: 300 }, [phase('before', 0.92), phase('after', 0.1)]),
      cell('overload', 'oracle', { succeeded: 920 }),
      cell('overload', 'mcp-resilience', { succeeded: mcpSucceeded, ...{ retries: 0 } }, [
        phase('before', 0.92),
        phase('after', mcpAfter, mcpAfterP50),
      ]),
    ];
    const met = find(checkTargets(make(0.9, 800), scenarioList), 'overload');
    expect(met.status).toBe('met');
    expect(met.results[0]!.value).toMatch(/: recovered; naive 10\.0% succeed.*\(collapsed\)/);
    const collapsed = find(checkTargets(make(0.5, 800), scenarioList), 'overload');
    expect(collapsed.status).toBe('missed');
    expect(collapsed.results[0]!.why).toMatch(/not recovered: after the spike 50.0% succeed/);
    const queued = find(checkTargets(make(0.92, 800, 401), scenarioList), 'overload');
    expect(queued.status).toBe('missed');
    expect(queued.results[0]!.why).toMatch(/standing queue/);
    expect(find(checkTargets(make(0.92, 800, 400), scenarioList), 'overload').status).toBe('met');
    expect(find(checkTargets(make(0.9, 299), scenarioList), 'overload').results[0]!.why).toMatch(
      /fewer successful calls than the naive loop/,
    );
  });

  it('overhead: at most 2 µs added with timeoutMs, with the ratio to cockatiel timeout + retry + breaker', () => {
    const overhead = (deadlineAddedNs: number): OverheadResult => {
      const row = (key: string, addedNs: number) => ({
        key,
        name: key,
        short: key,
        nsPerCall: 100 + addedNs,
        medianNsPerCall: 100 + addedNs,
        addedNs,
        rounds: [100 + addedNs],
      });
      return {
        machine: { cpu: 'x', cores: 2, node: 'v20', os: 'linux', memoryGiB: 4 },
        callsPerRound: 1,
        rounds: 1,
        rows: [
          row('bare', 0),
          row('mcp', 500),
          row('mcp-deadline', deadlineAddedNs),
          row('cockatiel-timeout', 4_000),
        ],
        spansExported: 0,
        spansExpected: 0,
      };
    };
    const met = find(checkTargets(cells({}), scenarios, overhead(2_000)), 'overhead');
    expect(met.status).toBe('met');
    expect(met.results[0]!.value).toMatch(/ratio 0\.50×/);
    const missed = find(checkTargets(cells({}), scenarios, overhead(2_400)), 'overhead');
    expect(missed.status).toBe('missed');
    expect(missed.results[0]!.why).toMatch(/1\.90 µs more than without it/);
  });
});

describe('goodput', () => {
  const trace = (start: number, end: number, ok: boolean): CallTrace => ({
    id: start,
    start,
    end,
    ok,
    endedBy: ok ? 'success' : 'error',
    outcome: ok ? 'success' : 'error',
    attempts: [],
  });

  it('splits a run around a spike: before, during, one deadline after, and the steady state after', () => {
    expect(spikePhases({ from: 60_000, to: 80_000, callEveryMs: 33 }, 300_000, 30_000)).toEqual([
      { key: 'before', name: 'before the spike', from: 0, to: 60_000 },
      { key: 'spike', name: 'during the spike', from: 60_000, to: 80_000 },
      { key: 'recovery', name: 'one deadline after it', from: 80_000, to: 110_000 },
      { key: 'after', name: 'after that (steady state)', from: 110_000, to: 270_000 },
    ]);
  });

  it('counts success and goodput by arrival, per run', () => {
    const phases = spikePhases({ from: 10_000, to: 20_000, callEveryMs: 10 }, 60_000, 10_000);
    const calls = [
      trace(0, 100, true),
      trace(5_000, 5_100, false),
      trace(15_000, 40_000, true),
      trace(35_000, 35_100, true),
    ];
    const by = goodputByPhase(calls, phases, 2);
    expect(by[0]).toMatchObject({
      phase: 'before',
      calls: 2,
      succeeded: 1,
      successRate: 0.5,
      goodput: 1 / 2 / 10,
    });
    expect(by[1]).toMatchObject({ phase: 'spike', calls: 1, succeeded: 1 });
    expect(by[3]).toMatchObject({ phase: 'after', calls: 1, succeeded: 1 });
    expect(recovered(by)).toBe(true);
    expect(
      recovered([
        { ...by[0]!, successRate: 0.9 },
        { ...by[3]!, successRate: 0.85 },
      ]),
    ).toBe(false);
  });

  it('buckets successful calls by completion time', () => {
    const series = goodputSeries(
      [trace(0, 500, true), trace(0, 1_500, true), trace(0, 1_600, false)],
      { durationMs: 2_000, deadlineMs: 1_000 },
      1_000,
      1,
    );
    expect(series).toEqual([1, 1, 0]);
  });
});

describe('checkTargets: the lone agent (issue #18)', () => {
  const dead = { key: 'dead', name: 'dead server', agent: { thinkMs: 1_500, shape: 'dead' as const } };
  const blip = {
    key: 'blip',
    name: 'blips',
    agent: { thinkMs: 1_500, shape: 'recovering' as const },
    withoutDeadline: true,
  };
  const blipDeadline = { key: 'blip-deadline', name: 'blips, deadline', agent: blip.agent };
  const list = [...scenarios, dead, blip, blipDeadline];
  const naiveDead: Partial<Metrics> = {
    requestsWhileDown: 1_000,
    failedTimeMs: 100_000,
    completedInWindow: 100,
  };
  const oracleDead: Partial<Metrics> = { requestsWhileDown: 0, failedTimeMs: 0, completedInWindow: 400 };
  const make = (mcp: Partial<Metrics>, afterOpenP50?: number, mcpBlip: Partial<Metrics> = {}) => [
    ...cells({}),
    cell('dead', 'naive', naiveDead),
    cell('dead', 'oracle', oracleDead),
    {
      ...cell('dead', 'mcp-resilience', mcp),
      ...(afterOpenP50 === undefined
        ? {}
        : { afterBreakerOpened: { failedCalls: 300, failedP50Ms: afterOpenP50 } }),
    },
    ...['blip', 'blip-deadline'].flatMap((k) => [
      cell(k, 'naive', { succeeded: 950 }),
      cell(k, 'oracle', { succeeded: 980 }),
      cell(k, 'mcp-resilience', { succeeded: 960, ...mcpBlip }),
    ]),
  ];
  const statuses = (checks: TargetCheck[], key: string) => find(checks, key).results.map((r) => r.status);
  const good = { requestsWhileDown: 100, failedTimeMs: 10_000, completedInWindow: 360 };

  it('dead server: requests, failed time, failing fast once open and calls completed, each at its bound', () => {
    const checks = checkTargets(make(good, 50), list);
    for (const key of [
      'lone-dead-requests',
      'lone-dead-failed-time',
      'lone-dead-fast',
      'lone-dead-completed',
    ])
      expect(find(checks, key).status).toBe('met');
    const bad = checkTargets(
      make({ requestsWhileDown: 101, failedTimeMs: 10_001, completedInWindow: 359 }, 51),
      list,
    );
    for (const key of [
      'lone-dead-requests',
      'lone-dead-failed-time',
      'lone-dead-fast',
      'lone-dead-completed',
    ]) {
      expect(find(bad, key).status).toBe('missed');
      expect(find(bad, key).results[0]!.why).toBeTruthy();
    }
  });

  it('dead server: a breaker that never opened misses the fail-fast target', () => {
    const r = find(checkTargets(make(good), list), 'lone-dead-fast').results[0]!;
    expect(r).toMatchObject({ status: 'missed', value: 'the breaker never opened' });
  });

  it('blips: success ≥ naive; with a deadline also ≥ oracle − 2 pp', () => {
    expect(statuses(checkTargets(make(good, 10), list), 'lone-recovering-success')).toEqual(['met', 'met']);
    // 949 < naive's 950: both miss
    expect(
      statuses(checkTargets(make(good, 10, { succeeded: 949 }), list), 'lone-recovering-success'),
    ).toEqual(['missed', 'missed']);
    // above naive but 3 pp below the oracle: only the variant with a deadline misses
    const others = (x: Partial<Metrics>) => [
      ...make(good, 10).filter((c) => !(c.scenario.startsWith('blip') && c.policy === 'oracle')),
      cell('blip', 'oracle', x),
      cell('blip-deadline', 'oracle', x),
    ];
    expect(statuses(checkTargets(others({ succeeded: 990 }), list), 'lone-recovering-success')).toEqual([
      'met',
      'missed',
    ]);
  });

  it('fleet scenarios only: failed calls cost at most half of what they cost the naive loop', () => {
    const withTime = (mcpMs: number) =>
      cells({ production: { failedTimeMs: mcpMs } }, { 'naive:production': { failedTimeMs: 10_000 } });
    const met = find(checkTargets(withTime(5_000), scenarios), 'failed-time');
    expect(met.results.map((r) => r.scenario)).toEqual(['production', 'outage']);
    expect(met.status).toBe('met');
    expect(find(checkTargets(withTime(5_001), scenarios), 'failed-time').results[0]!.status).toBe('missed');
    // the lone agent's scenarios are not in issue #11's targets
    expect(find(checkTargets(make(good, 10), list), 'success').results.map((r) => r.scenario)).toEqual([
      'production',
      'outage',
    ]);
  });
});
