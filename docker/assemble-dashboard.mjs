#!/usr/bin/env node
// Usage: node docker/assemble-dashboard.mjs <out-dir>
//
// Builds the dashboard's runtime tree from a finished build (`npx turbo run build --filter=@mcp-resilience/dashboard...`):
//   <out>/node_modules/...                      what Next.js traced for its server (.next/standalone)
//   <out>/apps/dashboard/.next/{server,static}  the built app and its static assets
//   <out>/apps/dashboard/public/                (empty when the app has none)
//   <out>/apps/dashboard/dist/server.mjs        the custom server (OTLP receiver, SSE, API), bundled with
//                                               `packages: 'external'`
//   <out>/apps/dashboard/next-standalone-config.mjs
//   + every file the custom server needs that Next did not trace (protobufjs, @mcp-resilience/middleware...),
//     found with the same tracer Next uses (@vercel/nft, compiled into next)
// then fails if a package the custom server imports is still missing. apps/dashboard/Dockerfile runs it, and
// packages/deploy's system tests run it into a temporary directory and start the server from there, so the
// image's layout is tested without a Docker engine. Start it with:
//   cd <out>/apps/dashboard && node --import ./next-standalone-config.mjs dist/server.mjs
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPackage, importedPackages } from './verify-imports.mjs';

const APP = 'apps/dashboard';

function fail(message) {
  console.error(`assemble-dashboard: ${message}`);
  process.exit(1);
}

/** Copies a file or a symlink (kept as the same relative link) from root to out, unless out already has it. */
function copyEntry(root, out, relative) {
  const from = join(root, relative);
  const to = join(out, relative);
  if (existsSync(to) || isSymlink(to)) return false;
  mkdirSync(dirname(to), { recursive: true });
  const stat = lstatSync(from);
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else if (stat.isFile()) cpSync(from, to, { preserveTimestamps: true });
  else return false;
  return true;
}

function isSymlink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export async function assembleDashboard(root, out) {
  const app = join(root, APP);
  const required = [
    '.next/standalone',
    '.next/static',
    '.next/required-server-files.json',
    'dist/server.mjs',
  ];
  const absent = required.filter((p) => !existsSync(join(app, p)));
  if (absent.length > 0) {
    fail(
      `${APP} is not built (missing ${absent.join(', ')}): run \`npx turbo run build --filter=@mcp-resilience/dashboard...\` first`,
    );
  }

  mkdirSync(out, { recursive: true });
  cpSync(join(app, '.next/standalone'), out, { recursive: true, verbatimSymlinks: true });
  cpSync(join(app, '.next/static'), join(out, APP, '.next/static'), { recursive: true });
  mkdirSync(join(out, APP, 'public'), { recursive: true });
  if (existsSync(join(app, 'public')))
    cpSync(join(app, 'public'), join(out, APP, 'public'), { recursive: true });
  cpSync(join(app, 'dist'), join(out, APP, 'dist'), { recursive: true });
  cpSync(join(root, 'docker/next-standalone-config.mjs'), join(out, APP, 'next-standalone-config.mjs'));

  // Trace the custom server like Next traces its own; Next's own files are already in the standalone tree.
  const requireFromApp = createRequire(join(app, 'package.json'));
  let nodeFileTrace;
  try {
    ({ nodeFileTrace } = requireFromApp('next/dist/compiled/@vercel/nft'));
  } catch (error) {
    fail(`cannot load the file tracer compiled into next (next/dist/compiled/@vercel/nft): ${error.message}`);
  }
  const server = join(app, 'dist/server.mjs');
  const trace = await nodeFileTrace([server], {
    base: root,
    processCwd: app,
    ignore: (path) => path.startsWith('node_modules/next/') || path.startsWith('node_modules/@next/'),
  });
  let added = 0;
  for (const relative of [...trace.fileList].sort()) {
    if (copyEntry(root, out, relative)) added += 1;
  }

  const bundle = join(out, APP, 'dist/server.mjs');
  const packages = importedPackages(readFileSync(bundle, 'utf8'));
  const missing = packages.filter((name) => findPackage(name, dirname(bundle)) === null);
  if (missing.length > 0)
    fail(`the custom server imports packages missing from ${out}: ${missing.join(', ')}`);
  return { added, packages };
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node docker/assemble-dashboard.mjs <out-dir>');
    process.exit(2);
  }
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { added, packages } = await assembleDashboard(root, resolve(out));
  console.log(
    `assemble-dashboard: ${resolve(out)} ready (${added} file(s) traced for the custom server; imports ${packages.join(', ')})`,
  );
}
