import { policyByKey } from './policies.js';
import { runQuality } from './quality.js';
import { SCENARIOS } from './scenarios.js';

/** A worker process: runs the scenarios and policies named in argv[2] (JSON) and sends the cells back. */
const job = JSON.parse(process.argv[2] ?? '{}') as {
  seeds: number[];
  scenarios: string[];
  policies: string[];
};
const result = await runQuality(
  job.seeds,
  SCENARIOS.filter((s) => job.scenarios.includes(s.key)),
  job.policies.map(policyByKey),
  (line) => console.log(line),
);
process.send?.(result, () => process.exit(0));
