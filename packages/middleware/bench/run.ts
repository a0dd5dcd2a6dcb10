import { scenarios, simulate } from './adaptiveBackoff.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const seeds = [1, 2, 3];

console.log(
  '## Adaptive vs fixed backoff (virtual time, seeds 1-3, one call every 50 ms for 10 min, defaults otherwise)\n',
);
console.log('| scenario | backoff | success rate | retries | retry efficiency |');
console.log('|---|---|---:|---:|---:|');
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
    console.log(
      `| ${scenario.name} | ${adaptiveBackoff ? 'adaptive' : 'fixed'} | ${pct(succeeded / calls)} | ${retries} | ${retries ? pct(successfulRetries / retries) : 'n/a'} |`,
    );
  }
}

console.log(
  '\nThe comparison with the anchors and the overhead per call: `npm run bench -w packages/bench` (docs/benchmarks.md).',
);
