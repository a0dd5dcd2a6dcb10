import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { repoRoot } from './repo.js';

const APT_HINT = 'apt-get install -y prometheus prometheus-alertmanager';

/** The absolute path of a system binary, or an error naming the Debian packages that provide it. */
export function requireBinary(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is not installed (not found on PATH). Install it with: ${APT_HINT}`);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs a command to completion (from the repository root unless `cwd` is given). */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): RunResult {
  const r = spawnSync(command, args, {
    cwd: options.cwd ?? repoRoot,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, output: `${r.stdout}\n${r.stderr}` };
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  /** SIGTERM to this process (by its pid), SIGKILL after `graceMs`; resolves with the exit code. */
  stop: (graceMs?: number) => Promise<number | null>;
}

/** Starts a long-running process whose output is collected for error messages. */
export function start(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Started {
  const child = spawn(command, args, {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    output: () => output,
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      }, graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs` with `describe()`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  options: {
    timeoutMs?: number;
    intervalMs?: number;
    describe?: () => string;
    fatal?: () => string | undefined;
  } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    const fatal = options.fatal?.();
    if (fatal !== undefined) throw new Error(`${fatal}${options.describe ? `\n${options.describe()}` : ''}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out${last ? ` (last error: ${(last as Error).message})` : ''}${options.describe ? `\n${options.describe()}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
  }
}

/** Resolves once GET `url` answers 200. */
export function waitForHttp(url: string, started: Started, timeoutMs = 60_000): Promise<true> {
  return waitFor(
    async () => {
      const res = await fetch(url);
      return res.status === 200 ? true : undefined;
    },
    {
      timeoutMs,
      fatal: () =>
        started.child.exitCode !== null ? `the process exited with ${started.child.exitCode}` : undefined,
      describe: () => `${url} did not answer 200. Output:\n${started.output()}`,
    },
  );
}
