#!/usr/bin/env node
// The `mcp-resilience` command. A committed file rather than dist/cli.js itself, so that npm links the command when
// it installs the workspace, before anything is built (npm skips a bin whose file is missing, and never links it
// later): in a fresh clone, `npx mcp-resilience` then says what to run instead of `sh: mcp-resilience: not found`.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'mcp-resilience: not built yet: run `npm run build` at the repository root (or `npm run build -w @mcp-resilience/proxy`) first\n',
  );
  process.exit(1);
}
await import(cli.href);
