// `npm run bench:overhead`: re-measures only the success-path overhead (every variant in the same run), keeps the
// last full run's quality, memory and dashboard results from docs/benchmarks/results.json, re-checks the targets
// and re-renders docs/benchmarks.md, overhead.svg, results.json and the README headline.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepSections } from './docsSection.js';
import { machine, measureOverhead } from './overhead.js';
import { type Results, render } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { checkTargets } from './targets.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const docs = join(root, 'docs');
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
const markdownFile = join(docs, 'benchmarks.md');
writeFileSync(markdownFile, keepSections(readFileSync(markdownFile, 'utf8'), rendered.markdown));
writeFileSync(join(docs, 'benchmarks', 'overhead.svg'), rendered.charts['overhead.svg'] ?? '');
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
const readme = join(root, 'README.md');
const marked = /(<!-- bench:headline -->\n)[\s\S]*?(<!-- \/bench:headline -->)/;
const text = readFileSync(readme, 'utf8');
if (!marked.test(text)) throw new Error(`${readme} has no <!-- bench:headline --> markers`);
writeFileSync(
  readme,
  text.replace(marked, (_, open, close) => `${open}\n${rendered.headline.trim()}\n\n${close}`),
);
const biome = join(
  dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')),
  'bin',
  'biome',
);
execFileSync(
  process.execPath,
  [biome, 'format', '--write', join(docs, 'benchmarks.md'), resultsFile, readme],
  {
    cwd: root,
    stdio: 'pipe',
  },
);
for (const row of overhead.rows)
  console.log(`${row.name.padEnd(58)} ${(row.addedNs / 1000).toFixed(2)} µs added`);
console.log('wrote docs/benchmarks.md, docs/benchmarks/{overhead.svg,results.json} and the README headline');
