import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { scenarios, simulate } from './adaptiveBackoff.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const seeds = [1, 2, 3];

const rows = [
  '| scenario | backoff | success rate | retries | retry efficiency |',
  '| --- | --- | ---: | ---: | ---: |',
];
for (const scenario of scenarios) {
  for (const adaptiveBackoff of [false, true]) {
    let calls = 0;
    let succeeded = 0;
    let retries = 0;
    let successfulRetries = 0;
    for (const seed of seeds) {
      const r = await simulate(scenario, { adaptiveBackoff }, seed);
      calls += r.calls;
      succeeded += r.succeeded;
      retries += r.retries;
      successfulRetries += r.successfulRetries;
    }
    rows.push(
      `| ${scenario.name} | ${adaptiveBackoff ? 'adaptive' : 'fixed'} | ${pct(succeeded / calls)} | ${retries} | ${retries ? pct(successfulRetries / retries) : 'n/a'} |`,
    );
  }
}
const table = rows.join('\n');

console.log(
  '## Adaptive vs fixed backoff (virtual time, seeds 1-3, one call every 50 ms for 10 min, defaults otherwise)\n',
);
console.log(table);

// The package README shows the table of the last run.
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = await readFile(readmeUrl, 'utf8');
const marked = /(<!-- bench:adaptive -->\n)[\s\S]*?(<!-- \/bench:adaptive -->)/;
if (!marked.test(readme)) throw new Error('README.md has no <!-- bench:adaptive --> markers');
await writeFile(readmeUrl, readme.replace(marked, `$1\n${table}\n\n$2`));
execFileSync('npx', ['biome', 'format', '--write', fileURLToPath(readmeUrl)], { stdio: 'ignore' });
console.log(
  '\n(README.md updated.) The comparison with the anchors and the overhead per call: packages/bench (docs/benchmarks.md).',
);
