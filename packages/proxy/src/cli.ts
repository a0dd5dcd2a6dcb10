#!/usr/bin/env node
import { runCommandLine } from './cli/runCommandLine.js';

process.exitCode = await runCommandLine(process.argv.slice(2), process.env);
