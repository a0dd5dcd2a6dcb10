/*
 * The idle-cap sweep (issue #18, `idleCapSweep.ts`): for each `breakerIdleMaxBreakMs`, the requests a lone agent
 * sends a dead server and the successful calls of the fleet benchmark's lone caller, against the naive loop's, in
 * one run (virtual time). Prints it, and writes it as its section of docs/benchmarks.md (between the
 * bench:idle-cap markers, appended when absent); `npm run bench` runs it too (one line at the end of run.ts).
 */
import { writeDocsSection } from './docsSection.js';
import { renderIdleCapSection, runIdleCapSweep } from './idleCapSweep.js';

const section = renderIdleCapSection(await runIdleCapSweep());
writeDocsSection('idle-cap', section);
console.log(section);
