import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A real `redis-server` on a free port of 127.0.0.1, no persistence: killed, paused and restarted by the tests. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it at once (`kill -9`): its data is gone. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Runs one command with `redis-cli` (its raw output, a line per reply element). */
  cli(...args: string[]): Promise<string[]>;
}

/** Fails with a clear message when the binary is absent. */
export function redisServerBinary(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'redis-server is not installed: these tests start a real one on 127.0.0.1 ' +
        '(Debian: apt-get update && apt-get install -y redis-server)',
    );
  }
}

export async function freePort(): Promise<number> {
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

/** Starts one and resolves when it logs that it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerBinary();
  let { port, child } = await launchOnFreePort(binary);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await stop(child);
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async restart() {
      await stop(child);
      child = await launch(binary, port);
    },
    cli: (...args) => cli(port, args),
  };
}

/**
 * On a free port: another process (a parallel test run) may take the port between `freePort` and the server's
 * bind, so a server that cannot bind it is started again on another one.
 */
async function launchOnFreePort(binary: string): Promise<{ port: number; child: ChildProcess }> {
  for (let tries = 1; ; tries++) {
    const port = await freePort();
    try {
      return { port, child: await launch(binary, port) };
    } catch (error) {
      if (tries >= 5 || !/already in use|Could not create server TCP/i.test(String(error))) throw error;
    }
  }
}

function launch(binary: string, port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${log}`)),
    );
    child.once('error', reject);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
}

function cli(port: number, args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile('redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--raw', ...args], (error, stdout) =>
      error ? reject(error) : resolve(stdout.split('\n').filter((line) => line !== '')),
    ),
  );
}
