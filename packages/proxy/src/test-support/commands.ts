import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The resolved entry file of an installed package's bin (fails with a clear message when it is absent). */
function packageFile(pkg: string, relative: string): string {
  const file = join(dirname(require.resolve(`${pkg}/package.json`)), relative);
  if (!existsSync(file)) throw new Error(`${pkg} is not installed (missing ${file}): run npm install`);
  return file;
}

/** The proxy's CLI as built (`npm test` builds it first: tsx would triple the start-up time). */
export function proxyCommand(args: readonly string[]): { command: string; args: string[] } {
  const cli = join(here, '..', '..', 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build in packages/proxy`);
  return { command: process.execPath, args: [cli, ...args] };
}

/** `@modelcontextprotocol/server-everything` over stdio. */
export const everything = () => ({
  command: process.execPath,
  args: [packageFile('@modelcontextprotocol/server-everything', 'dist/index.js'), 'stdio'],
});

/** `@modelcontextprotocol/server-memory` over stdio, with its file in `dir`. */
export const memory = () => ({
  command: process.execPath,
  args: [packageFile('@modelcontextprotocol/server-memory', 'dist/index.js')],
});

/** `@modelcontextprotocol/server-filesystem` over stdio, serving `dir`. */
export const filesystem = (dir: string) => ({
  command: process.execPath,
  args: [packageFile('@modelcontextprotocol/server-filesystem', 'dist/index.js'), dir],
});

/** A chaos server over stdio with a plan; its ground-truth log is `log` (JSON lines, appended across restarts). */
export function chaosStdio(plan: object, seed = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-chaos-'));
  const planFile = join(dir, 'plan.json');
  const log = join(dir, 'log.jsonl');
  writeFileSync(planFile, JSON.stringify(plan));
  return {
    command: process.execPath,
    args: [
      packageFile('@mcp-resilience/chaos', 'dist/cli.js'),
      'serve',
      '--transport',
      'stdio',
      '--plan',
      planFile,
      '--seed',
      String(seed),
      '--log',
      log,
      '--step-ms',
      '50',
    ],
    entries: () => readLog(log),
  };
}

export interface LogEntry {
  readonly method: string;
  readonly tool?: string;
  readonly requestId: string | number;
  readonly fault: string | null;
  readonly executed: boolean;
  readonly via?: string;
}

function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogEntry);
}

/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`) with its `--cli` arguments. It looks up its own
 * package.json relative to the working directory, so it runs in its build directory.
 */
export function inspector(args: readonly string[]): { command: string; args: string[]; cwd: string } {
  const cli = packageFile('@modelcontextprotocol/inspector-cli', 'build/cli.js');
  return { command: process.execPath, args: [cli, '--cli', ...args], cwd: dirname(cli) };
}

/**
 * `server` (a command running node) with a start counter: each process it starts appends its pid to a file
 * before the server's own code runs (a preload, `--import`), so a test sees from the upstream's side how many
 * children the proxy started. `starts()` lists their pids, in order.
 */
export function countStarts<S extends { command: string; args: readonly string[] }>(
  server: S,
): S & { args: string[]; starts: () => number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-starts-'));
  const file = join(dir, 'starts.txt');
  const preload = join(dir, 'count-start.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(file)}, process.pid + '\\n');\n`,
  );
  const starts = () =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map(Number)
      : [];
  return { ...server, args: ['--import', pathToFileURL(preload).href, ...server.args], starts };
}
