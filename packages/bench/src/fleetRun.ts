/*
 * Runs the fleet benchmark (issue #23) and writes its section of docs/benchmarks.md (between the bench:fleet
 * markers, appended when absent) and docs/benchmarks/fleet.json. `node --import tsx src/fleetRun.ts`; `npm run
 * bench` runs it too (one line at the end of run.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS, writeDocsSection } from './docsSection.js';
import { runFleet } from './fleet.js';
import { measureFleetLatency } from './fleetLatency.js';
import { renderFleet } from './fleetReport.js';

const cells = await runFleet();
const latency = await measureFleetLatency();
const section = renderFleet(cells, latency);
const json = join(DOCS, 'benchmarks', 'fleet.json');
writeFileSync(json, `${JSON.stringify({ cells, latency }, null, 2)}\n`);
writeDocsSection('fleet', section, [json]);
console.log(section);
