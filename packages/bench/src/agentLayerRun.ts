/*
 * Runs the agent-layer benchmark and writes docs/benchmarks/agent-layer.md (and agent-layer.json).
 * `node --import tsx src/agentLayerRun.ts`; `npm run bench` runs it too (one line at the end of run.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAgentLayer, runAgentLayer } from './agentLayer.js';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'benchmarks');
const cells = await runAgentLayer({ tasks: 20, costPerAttempt: 1, costPerLlmCall: 1, seed: 1 });
const markdown = renderAgentLayer(cells, 1, 1);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'agent-layer.md'), markdown);
writeFileSync(join(out, 'agent-layer.json'), `${JSON.stringify(cells, null, 2)}\n`);
// Formatted with the repository's Biome, so that the root `npm run lint` stays clean after a run.
const biome = join(
  dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')),
  'bin',
  'biome',
);
execFileSync(
  process.execPath,
  [biome, 'format', '--write', join(out, 'agent-layer.md'), join(out, 'agent-layer.json')],
  {
    stdio: 'pipe',
  },
);
console.log(markdown);
