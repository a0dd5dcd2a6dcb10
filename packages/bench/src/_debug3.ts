import { createResilience, realClock } from '@mcp-resilience/middleware';
import { recordSequence, SCENARIOS } from './scenarios.js';
import { type Policy, simulate } from './simulate.js';
import { EPOCH } from './virtualTime.js';
import { computeMetrics } from './metrics.js';

const key = process.argv[2] ?? 'blips';
const opts = JSON.parse(process.argv[3] ?? '{}');
const spec = SCENARIOS.find((s) => s.key === key)!;
const seq = recordSequence(spec, 1);
const events: any[] = [];
const policy: Policy = {
  key: 'dbg', name: 'dbg', description: '',
  create() {
    const rec = { record: (e: any) => { if (e.type === 'retry_scheduled' || e.type==='failure_classified') events.push({ ...e, t: Date.now() - EPOCH }); } };
    const r = createResilience({ ...opts, clock: { now: () => Date.now(), sleep: realClock.sleep, random: () => Math.random() }, recorder: rec });
    return { execute: (send, { signal, deadline }) => r.execute(({ signal: s }) => send(s), { endpoint: 'weather', signal, timeoutMs: deadline - Date.now() }) };
  },
};
const run = await simulate(seq, policy);
const m = computeMetrics(run.calls);
console.log(JSON.stringify(opts), 'success', m.successRate.toFixed(4), 'retries', m.retries, 'eff', m.retryEfficiency?.toFixed(3), 'down', m.requestsWhileDown, 'p99', m.p99Ms);
const dec: Record<string, number> = {};
for (const e of events.filter(e => e.type==='failure_classified')) dec[e.decision + (e.detail?.reason ? ':' + e.detail.reason : '')] = (dec[e.decision + (e.detail?.reason ? ':' + e.detail.reason : '')] ?? 0) + 1;
console.log(dec);
const delays = events.filter(e => e.type==='retry_scheduled').map(e => Math.round(e.delayMs));
console.log('delays', delays.slice(0, 60).join(' '));
