/*
 * Runs the fleet benchmark (issue #23) and writes its section of docs/benchmarks.md (between the bench:fleet
 * markers, appended when absent) and docs/benchmarks/fleet.json. `node --import tsx src/fleetRun.ts`; `npm run
 * bench` runs it too (one line at the end of run.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFleet } from './fleet.js';
import { measureFleetLatency } from './fleetLatency.js';
import { renderFleet } from './fleetReport.js';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs');
const cells = await runFleet();
const latency = await measureFleetLatency();
const section = renderFleet(cells, latency);
const file = join(docs, 'benchmarks.md');
const text = readFileSync(file, 'utf8');
const marked = /<!-- bench:fleet -->[\s\S]*?<!-- \/bench:fleet -->/;
const block = `<!-- bench:fleet -->\n${section}\n<!-- /bench:fleet -->`;
writeFileSync(file, marked.test(text) ? text.replace(marked, block) : `${text.trimEnd()}\n\n${block}\n`);
const json = join(docs, 'benchmarks', 'fleet.json');
writeFileSync(json, `${JSON.stringify({ cells, latency }, null, 2)}\n`);
// Formatted with the repository's Biome (Markdown tables, JSON), so that the root `npm run lint` stays clean.
const biome = join(
  dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')),
  'bin',
  'biome',
);
execFileSync(process.execPath, [biome, 'format', '--write', file, json], { stdio: 'pipe' });
console.log(section);
