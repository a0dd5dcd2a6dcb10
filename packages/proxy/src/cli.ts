#!/usr/bin/env node
import { keepYoungGenerationSmall } from './cli/keepYoungGenerationSmall.js';

// Before anything else is loaded or read: this may replace the process with one whose young generation is small.
keepYoungGenerationSmall();
const { runCommandLine } = await import('./cli/runCommandLine.js');
process.exitCode = await runCommandLine(process.argv.slice(2), process.env);
