import { computeMetrics } from '/work/wt/i11b/packages/bench/src/metrics.js';
import { policyByKey } from '/work/wt/i11b/packages/bench/src/policies.js';
import { recordSequence, SCENARIOS } from '/work/wt/i11b/packages/bench/src/scenarios.js';
import { simulate } from '/work/wt/i11b/packages/bench/src/simulate.js';
const keys = (process.argv[2] ?? 'overload').split(',');
const pols = (process.argv[3] ?? 'naive,mcp-resilience,oracle').split(',');
for (const key of keys) {
  const seq = recordSequence(SCENARIOS.find((s) => s.key === key)!, 1);
  for (const p of pols) {
    const r = await simulate(seq, policyByKey(p));
    const m = computeMetrics(r.calls);
    const buckets: number[] = [];
    for (const c of r.calls) if (c.ok) { const b = Math.floor(c.start / 30000); buckets[b] = (buckets[b] ?? 0) + 1; }
    console.log(key, p, (100 * m.successRate).toFixed(1), 'req', m.requests, 'retries', m.retries, 'eff', m.retryEfficiency?.toFixed(2), 'down', m.requestsWhileDown, 'wall', r.wallMs.toFixed(0), 'ok/30s', [...buckets].map((x) => x ?? 0).join(' '));
  }
}
