/*
 * Prints the idle-cap sweep (issue #18, `idleCapSweep.ts`): for each `breakerIdleMaxBreakMs`, the requests a lone
 * agent sends a dead server and the fleet benchmark's lone caller's success, in one run (virtual time).
 */
import { FLEET_SEEDS_NOTE, LONE_SEEDS, renderIdleCapSweep, runIdleCapSweep } from './idleCapSweep.js';

const rows = await runIdleCapSweep();
console.log(
  `Idle probe cap: requests into a dead server (lone agent, ${LONE_SEEDS} seeds pooled; share of the naive loop's) and the fleet benchmark's lone caller (${FLEET_SEEDS_NOTE}):\n`,
);
console.log(renderIdleCapSweep(rows));
