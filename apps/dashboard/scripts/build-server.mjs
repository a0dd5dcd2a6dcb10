// Bundles server.ts with lib/ and its pure-JS dependencies into dist/server.mjs. Only Next, React and the
// native better-sqlite3 stay external: they are in node_modules, and in Next's standalone output.
import { build } from 'esbuild';

await build({
  entryPoints: ['server.ts'],
  outfile: 'dist/server.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['next', 'next/*', 'react', 'react-dom', 'react/*', 'react-dom/*', 'better-sqlite3'],
  sourcemap: true,
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
console.log('built dist/server.mjs');
