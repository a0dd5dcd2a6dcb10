// Preloaded by the dashboard image (`node --import ./next-standalone-config.mjs dist/server.mjs`; see
// apps/dashboard/Dockerfile, which copies this file next to the app).
//
// A Next.js standalone build does not contain next.config.ts: the server.js that Next generates hands the built
// config to Next through __NEXT_PRIVATE_STANDALONE_CONFIG before it starts. The dashboard runs its own server
// (dist/server.mjs) instead of that server.js, so this does the same from .next/required-server-files.json,
// unless the variable is already set.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// biome-ignore lint/suspicious/noUndeclaredEnvVars: read at container start, not by any turbo task
if (!process.env.__NEXT_PRIVATE_STANDALONE_CONFIG) {
  const manifest = join(dirname(fileURLToPath(import.meta.url)), '.next', 'required-server-files.json');
  let config;
  try {
    config = JSON.parse(readFileSync(manifest, 'utf8')).config;
  } catch (error) {
    console.error(`dashboard: cannot read the Next.js build config from ${manifest}: ${error.message}`);
    process.exit(1);
  }
  if (typeof config !== 'object' || config === null) {
    console.error(`dashboard: ${manifest} has no "config" object`);
    process.exit(1);
  }
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}
