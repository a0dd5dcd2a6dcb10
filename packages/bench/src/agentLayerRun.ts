/*
 * Runs the agent-layer benchmark and writes docs/benchmarks/agent-layer.md (and agent-layer.json).
 * `node --import tsx src/agentLayerRun.ts`; `npm run bench` runs it too (one line at the end of run.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAgentLayer, runAgentLayer } from './agentLayer.js';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'benchmarks');
const cells = await runAgentLayer({ tasks: 20, costPerAttempt: 1, costPerLlmCall: 1, seed: 1 });
const markdown = renderAgentLayer(cells, 1, 1);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'agent-layer.md'), markdown);
writeFileSync(join(out, 'agent-layer.json'), `${JSON.stringify(cells, null, 2)}\n`);
console.log(markdown);
