import { cpus } from 'node:os';
import { scenarios, simulate } from './adaptiveBackoff.js';
import { measureOverhead } from './overhead.js';

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

const o = await measureOverhead();
console.log(
  `\n## Success-path overhead per call (${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version})\n`,
);
console.log('| | ns per call | added vs bare | ratio vs cockatiel |');
console.log('|---|---:|---:|---:|');
console.log(`| bare call | ${o.bare.toFixed(0)} | | |`);
console.log(
  `| cockatiel retry + breaker | ${o.cockatiel.toFixed(0)} | ${(o.cockatiel - o.bare).toFixed(0)} | 1.00 |`,
);
console.log(
  `| mcp-resilience execute | ${o.execute.toFixed(0)} | ${(o.execute - o.bare).toFixed(0)} | ${((o.execute - o.bare) / (o.cockatiel - o.bare)).toFixed(2)} |`,
);
