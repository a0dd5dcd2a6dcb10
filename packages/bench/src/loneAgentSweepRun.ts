/*
 * Prints the lone-agent sweep (issue #18, `loneAgentSweep.ts`): the defaults against the naive loop and the oracle,
 * for outages of 3 to 60 s, refused and 503, without and with a 10 s deadline, 12 phases each (about 5 s).
 */
import { renderSweep, runSweep, SWEEP_SEEDS } from './loneAgentSweep.js';
import { oracle } from './oracle.js';
import { mcpResilience, naive } from './policies.js';

const rows = await runSweep([naive, mcpResilience, oracle]);
console.log(`Lone agent, one outage per run, ${SWEEP_SEEDS} phases pooled (virtual time):\n`);
console.log(renderSweep(rows, mcpResilience.key));
