import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The version of the package `name` as this file resolves it (the package's `package.json`, found above its
 * entry point: OpenTelemetry packages do not export `./package.json`).
 */
export function installedVersion(name: string, from: string = import.meta.url): string {
  let dir = dirname(createRequire(from).resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`installedVersion: no package.json of '${name}' above its entry point`);
    dir = parent;
  }
}
