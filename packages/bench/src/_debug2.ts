import { mcpResilience, aiSdk } from './policies.js';
import { recordSequence, SCENARIOS } from './scenarios.js';
import { simulate } from './simulate.js';

const key = process.argv[2] ?? 'production';
const spec = SCENARIOS.find((s) => s.key === key)!;
const seq = recordSequence(spec, 1);
for (const p of [mcpResilience]) {
const run = await simulate(seq, p);
const wasted: Record<string, number> = {};
for (const c of run.calls) for (const a of c.attempts) if (a.k > 1 && !a.ok) { const f = `${a.fault}${a.aborted ? ' (aborted)' : ''} prev=${c.attempts[a.k-2]?.fault}`; wasted[f] = (wasted[f] ?? 0) + 1; }
console.log(p.key, 'wasted by fault', wasted);
let n = 0;
for (const c of run.calls) {
  const last = c.attempts.at(-1);
  if (!c.ok && last && !last.ok && last.transient === false && (c.end - c.start) > 1.1 * (last.end - last.start)) {
    if (n++ < 15) console.log(c.id, 'dur', c.end - c.start, 'attempts', c.attempts.map((a) => `${a.k}:${a.fault ?? 'ok'}@${a.start - c.start}+${a.end - a.start}`).join(' '));
  }
}
console.log('NR calls slower than 1.1x', n);
}
