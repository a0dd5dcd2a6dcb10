/*
 * The lone-agent sweep (issue #18, `loneAgentSweep.ts`): the defaults against the naive loop and the oracle, for
 * outages of 3 s to 2 min, refused and 503, without and with a 10 s deadline, 12 phases each (a few seconds).
 * Prints it per fault, and writes it as docs/benchmarks.md §6 (between the bench:lone-sweep markers, appended when
 * absent); `npm run bench` runs it too (at the end of run.ts).
 */
import { writeDocsSection } from './docsSection.js';
import { renderLoneSweepSection, renderSweep, runSweep, SWEEP_SEEDS } from './loneAgentSweep.js';
import { oracle } from './oracle.js';
import { mcpResilience, naive } from './policies.js';

const rows = await runSweep([naive, mcpResilience, oracle]);
writeDocsSection('lone-sweep', renderLoneSweepSection(rows, mcpResilience.key));
console.log(`Lone agent, one outage per run, ${SWEEP_SEEDS} phases pooled (virtual time):\n`);
console.log(renderSweep(rows, mcpResilience.key));
