#!/usr/bin/env node
// Usage: node docker/verify-imports.mjs <bundle.mjs>
//
// Fails (exit 1) when a package that the bundle imports is not installed where Node would look for it from the
// bundle's directory. assemble-dashboard.mjs applies it to the custom server (dist/server.mjs, bundled with
// `packages: 'external'`) inside the Next.js standalone tree, whose node_modules only holds what was traced:
// a missing package would otherwise show up at runtime in the container, not when the image is built.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PATTERNS = [
  /^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gm, // import x from "p"; export * from "p" (multi-line too)
  /^\s*import\s*["']([^"']+)["']/gm, // import "p"
  /\bimport\(\s*["']([^"']+)["']\s*\)/g, // import("p")
  /\brequire\(\s*["']([^"']+)["']\s*\)/g, // require("p"), through the bundle's createRequire banner
];

const builtins = new Set(builtinModules);

/** The package name of a bare specifier (`@scope/name/sub` -> `@scope/name`), or null for anything else. */
export function packageName(specifier) {
  if (/^(?:\.|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) return null; // relative, absolute, node:, data:, file:
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (!name || builtins.has(name)) return null;
  return name;
}

/** Every package a bundle imports, sorted. */
export function importedPackages(source) {
  const names = new Set();
  for (const pattern of PATTERNS) {
    for (const match of source.matchAll(pattern)) {
      const name = packageName(match[1]);
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

/** The directory Node would load `name` from, searching node_modules upwards from `fromDir`, or null. */
export function findPackage(name, fromDir) {
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const bundle = process.argv[2];
  if (!bundle) {
    console.error('usage: node verify-imports.mjs <bundle.mjs>');
    process.exit(2);
  }
  const packages = importedPackages(readFileSync(bundle, 'utf8'));
  const missing = packages.filter((name) => findPackage(name, dirname(bundle)) === null);
  if (missing.length > 0) {
    console.error(
      `verify-imports: ${bundle} imports ${missing.length} package(s) missing from the runtime tree: ${missing.join(', ')}.\n` +
        'Make the server resolve them through Next (so they are traced), list them in outputFileTracingIncludes, or copy them into the image.',
    );
    process.exit(1);
  }
  console.log(
    `verify-imports: ${bundle}: all ${packages.length} imported package(s) present (${packages.join(', ')})`,
  );
}
