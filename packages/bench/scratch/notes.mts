import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
const r = JSON.parse(readFileSync('/work/wt/i11b/docs/benchmarks/results.json', 'utf8'));
const i11 = execSync('git -C /work/wt/i11b log i11 -1 --format="%h %s"').toString().trim();
const merged = execSync('git -C /work/wt/i11b merge-base --is-ancestor i11 HEAD && echo yes || echo no').toString().trim();
const head = execSync('git -C /work/wt/i11b log -1 --format="%h"').toString().trim();
const pols = ['naive', 'p-retry', 'cockatiel', 'opossum', 'mcp-resilience', 'oracle'];
const out: string[] = [];
out.push(`# bench-latest (helper i11b)\n`);
out.push(`Generated ${r.generatedAt}, bench run ${r.runtimeSeconds.toFixed(0)} s, branch i11b at ${head}; i11 tip: ${i11} (merged into i11b: ${merged}).`);
out.push(`Middleware dist built ${r.middleware.distBuiltAt}. Defaults: ${r.middleware.defaults}\n`);
out.push('Per scenario and policy (3 seeds pooled): success %, requests to a down endpoint, retries, retry efficiency, MTTF ratio (all NR / first-request NR), goodput (successful calls/s per seed), failed w/o request, 503s from overload.\n');
for (const s of r.quality.scenarios) {
  out.push(`## ${s.key} — ${s.name}\n`);
  out.push('| policy | success | down reqs | retries | eff | MTTF ratio | goodput/s | no-request fails | overload 503s |');
  out.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const p of pols) {
    const c = r.quality.cells.find((x: any) => x.scenario === s.key && x.policy === p);
    if (!c) continue;
    const m = c.metrics;
    const f = (x: number | null, d = 2) => (x === null || x === undefined ? '—' : x.toFixed(d));
    out.push(`| ${p} | ${(100 * m.successRate).toFixed(2)}% | ${m.requestsWhileDown} | ${m.retries} | ${f(m.retryEfficiency)} | ${f(m.mttfRatio)} / ${f(m.mttfFirstRequestRatio)} | ${(m.succeeded / c.successBySeed.length / (s.durationMs / 1000)).toFixed(2)} | ${m.failedWithoutRequest} | ${m.requestsOverloaded ?? 0} |`);
  }
  const mc = r.quality.cells.find((x: any) => x.scenario === s.key && x.policy === 'mcp-resilience');
  if (mc) out.push(`\nmcp-resilience outcomes: ${Object.entries(mc.outcomes).map(([k, n]) => `${k} ${n}`).join(', ')}; breaker: ${JSON.stringify(mc.extra)}`);
  for (const p of ['naive', 'mcp-resilience', 'oracle']) {
    const c = r.quality.cells.find((x: any) => x.scenario === s.key && x.policy === p);
    if (c?.phases) out.push(`\n${p} phases: ${c.phases.map((ph: any) => `${ph.phase} ${(100 * ph.successRate).toFixed(1)}% ${ph.goodput.toFixed(1)}/s`).join('; ')}`);
  }
  out.push('');
}
out.push('## Overhead (best round, ns per call; added = minus bare)\n');
for (const row of r.overhead.rows) out.push(`- ${row.name}: ${(row.nsPerCall / 1000).toFixed(2)} µs (added ${(row.addedNs / 1000).toFixed(2)} µs)`);
out.push('\n## Targets\n');
for (const t of r.targets) {
  out.push(`- **${t.status}** ${t.target}`);
  for (const x of t.results) out.push(`  - ${x.status} ${x.scenario}: ${x.value}${x.why ? ` — why: ${x.why}` : ''}`);
}
writeFileSync('/work/wt/notes/bench-latest.md', `${out.join('\n')}\n`);
console.log('wrote /work/wt/notes/bench-latest.md');
