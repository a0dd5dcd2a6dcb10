// `npm run bench:overhead`: re-measures only the success-path overhead (every variant in the same run), keeps the
// last full run's quality, memory and dashboard results from docs/benchmarks/results.json, re-checks the targets
// and re-renders docs/benchmarks.md, overhead.svg, results.json and the README headline.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DOCS as docs, formatWithBiome, writeBenchmarksDoc, writeReadmeHeadline } from './docsSection.js';
import { machine, measureOverhead } from './overhead.js';
import { type Results, render } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { checkTargets } from './targets.js';

const resultsFile = join(docs, 'benchmarks', 'results.json');

const loadAverage = loadavg();
const last = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
console.log('success-path overhead (the other sections are kept from the last full run)...');
const overhead = await measureOverhead();
const results: Results = {
  ...last,
  machine: { ...machine(), loadAverage },
  overhead,
  targets: checkTargets([...last.quality.cells, ...last.quality.whatIf.cells], SCENARIOS, overhead),
};

const rendered = render(results);
writeBenchmarksDoc(rendered.markdown);
writeFileSync(join(docs, 'benchmarks', 'overhead.svg'), rendered.charts['overhead.svg'] ?? '');
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
formatWithBiome([join(docs, 'benchmarks.md'), resultsFile, writeReadmeHeadline(rendered.headline)]);
for (const row of overhead.rows)
  console.log(`${row.name.padEnd(58)} ${(row.addedNs / 1000).toFixed(2)} µs added`);
console.log('wrote docs/benchmarks.md, docs/benchmarks/{overhead.svg,results.json} and the README headline');
