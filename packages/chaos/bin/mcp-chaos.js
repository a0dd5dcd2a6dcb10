#!/usr/bin/env node
// The `mcp-chaos` command. A committed file rather than dist/cli.js itself, so that npm links the command when it
// installs the workspace, before anything is built: in a fresh clone, `npx mcp-chaos` then says what to run
// instead of npx looking for a package of that name on the registry.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'mcp-chaos: not built yet: run `npm run build` at the repository root (or `npm run build -w @mcp-resilience/chaos`) first\n',
  );
  process.exit(1);
}
await import(cli.href);
