import { createMemoryRecorder, createResilience, realClock } from '@mcp-resilience/middleware';
import { computeMetrics } from './metrics.js';
import { recordSequence, SCENARIOS } from './scenarios.js';
import { type Policy, simulate } from './simulate.js';
import { EPOCH } from './virtualTime.js';

const key = process.argv[2] ?? 'flapping';
const spec = SCENARIOS.find((s) => s.key === key)!;
const seq = recordSequence(spec, 1);
const events: any[] = [];
const policy: Policy = {
  key: 'dbg', name: 'dbg', description: '',
  create() {
    const rec = { record: (e: any) => { if (e.type === 'breaker_transition' || e.type==='call_finished') events.push({ ...e, t: Date.now() - EPOCH }); } };
    const r = createResilience({ clock: { now: () => Date.now(), sleep: realClock.sleep, random: () => Math.random() }, recorder: rec });
    return { execute: (send, { signal, deadline }) => r.execute(({ signal: s }) => send(s), { endpoint: 'weather', signal, timeoutMs: deadline - Date.now() }) };
  },
};
const run = await simulate(seq, policy);
console.log(computeMetrics(run.calls));
console.log(seq.segments.slice(0, 15).map((s) => `${s.from}-${s.to} ${s.state.kind}`).join('\n'));
for (const e of events.filter((e) => e.type === 'breaker_transition').slice(0, 40)) console.log(e.t, e.from, '->', e.to, e.reason);
