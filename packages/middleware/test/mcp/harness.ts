import { type ChildProcess, spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as httpCreateServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FaultPlan, GroundTruthEntry } from '@mcp-resilience/chaos';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Clock } from '../../src/Clock.js';
import type { McpResilienceOptions } from '../../src/mcp/index.js';
import type { MemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import type { AttemptFinishedEvent, CallFinishedEvent } from '../../src/record/ResilienceEvent.js';

const require = createRequire(import.meta.url);

/** The chaos server's CLI, built (`npm run build -w packages/chaos`; turbo builds it before the tests). */
export const CHAOS_CLI = join(
  dirname(require.resolve('@mcp-resilience/chaos/package.json')),
  'dist',
  'cli.js',
);
/** server-everything's entry: `node index.js stdio|streamableHttp` (HTTP port from `PORT`). */
export const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Options every test uses: short waits, no randomness. */
export const fast = {
  backoffBaseMs: 20,
  backoffMaxMs: 200,
  jitter: 'none',
  adaptiveBackoff: false,
  breakerJitter: 0,
  breakerBreakMs: 300,
  retryAfterMarginMs: 20,
} as const satisfies McpResilienceOptions;

export const newClient = () => new Client({ name: 'mcp-resilience-test', version: '1.0.0' });

/** A free TCP port on 127.0.0.1 (bound to 0, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

export const httpTransport = (url: string, fetch?: FetchLike) =>
  new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {});

/** A temporary directory, removed by the returned `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-resilience-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A chaos server over stdio (the built CLI), with its plan and ground-truth log in `dir`. */
export function chaosStdio(dir: string, plan: FaultPlan, name = 'chaos') {
  const planFile = join(dir, `${name}.plan.json`);
  const logFile = join(dir, `${name}.log.jsonl`);
  writeFileSync(planFile, JSON.stringify(plan));
  const transport = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [CHAOS_CLI, 'serve', '--transport', 'stdio', '--plan', planFile, '--log', logFile],
      stderr: 'pipe',
    });
  return { transport, log: () => readLog(logFile), logFile };
}

/** The entries of a JSON Lines ground-truth log, by `seq` (entries are appended as they settle). */
export function readLog(file: string): GroundTruthEntry[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as GroundTruthEntry)
    .sort((a, b) => a.seq - b.seq);
}

/** server-everything over stdio. */
export const everythingStdio = () =>
  new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' });

export interface EverythingHttp {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Kills the process and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts server-everything's Streamable HTTP mode on `port` (default: a free one) and waits until it listens. */
export async function startEverythingHttp(port?: number): Promise<EverythingHttp> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(chosen) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${output}`)), 10_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${output}`));
    });
  });
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${chosen}/mcp`,
    port: chosen,
    process: child,
    stop: () => stopProcess(child),
  };
}

/** Kills a child process (SIGKILL: a stopped one must die too) and waits for its exit. */
export async function stopProcess(child: ChildProcess | number | null | undefined): Promise<void> {
  if (child === null || child === undefined) return;
  if (typeof child === 'number') {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // already gone
    }
    return;
  }
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** Closes a client without waiting for a stdio server that ignores the end of its stdin. */
export async function closeQuietly(client: Client, transport?: StdioClientTransport): Promise<void> {
  if (transport?.pid) await stopProcess(transport.pid);
  await client.close().catch(() => {});
}

/** The attempts the recorder saw, in order: method, tool, outcome, classification. */
export function attemptsSeen(recorder: MemoryRecorder) {
  return recorder.ofType('attempt_finished').map((event: AttemptFinishedEvent) => ({
    method: event.operation,
    tool: event.attributes['gen_ai.tool.name'],
    outcome: event.outcome,
    type: event.classification?.type,
    execution: event.classification?.execution,
    durationMs: event.durationMs,
  }));
}

/** The last `call_finished` event. */
export function lastCall(recorder: MemoryRecorder): CallFinishedEvent {
  const calls = recorder.ofType('call_finished');
  const last = calls.at(-1);
  if (!last) throw new Error('no call finished');
  return last;
}

/**
 * Waits until `predicate` holds (polling: for an event of another process, such as a line of its log), or throws
 * after `timeoutMs`, naming `what` it waited for. The limit is a backstop for a broken test, not a wait.
 */
export async function until(predicate: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A real clock whose long waits the test ends itself, at an event: see {@link skippableClock}. */
export interface SkippableClock extends Clock {
  /** Moves the clock `ms` forward: every long wait due by then ends now. */
  skip(ms: number): void;
}

/**
 * The real clock, except that a wait longer than `realUpToMs` (an attempt's time limit, a breaker's break, a
 * deadline) never ends by itself: it ends when the test moves the clock past it with `skip`, once the event it
 * waits for happened (the server logged the request, a call is at the breaker's gate). Short waits (backoff) pass
 * in real time. A test then never bets on how long something takes under load.
 */
export function skippableClock(realUpToMs = 1_000): SkippableClock {
  let offset = 0;
  const long = new Set<{ readonly at: number; readonly end: () => void }>();
  const now = () => Date.now() + offset;
  return {
    now,
    random: () => Math.random(),
    sleep(ms, signal, options) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const waiter = { at: now() + ms, end: () => finish(resolve) };
        const finish = (settle: () => void) => {
          if (timer !== undefined) clearTimeout(timer);
          long.delete(waiter);
          signal?.removeEventListener('abort', onAbort);
          settle();
        };
        const onAbort = () => finish(() => reject(signal?.reason));
        signal?.addEventListener('abort', onAbort, { once: true });
        if (ms > realUpToMs) {
          long.add(waiter);
          return;
        }
        timer = setTimeout(() => finish(resolve), ms);
        if (options?.unref) timer.unref?.();
      });
    },
    skip(ms) {
      offset += ms;
      for (const waiter of [...long]) if (waiter.at <= now()) waiter.end();
    },
  };
}

/**
 * Cuts attempt number `attempt` of a tool's call at its time limit (`limitMs`, longer than the clock's real
 * waits): waits until it has started (its request is on its way) and, with `reached`, until the server has it,
 * then moves the clock past the limit until the attempt has finished. A server that answers later than that (a
 * slow tool) cannot win the race on a loaded machine, as it could against a short real limit.
 */
export async function cutAttempt(
  clock: SkippableClock,
  recorder: MemoryRecorder,
  cut: AttemptCut,
): Promise<void> {
  const { attempt, limitMs, tool, reached } = cut;
  const seen = (type: 'attempt_started' | 'attempt_finished') =>
    recorder
      .ofType(type)
      .some(
        (e) => e.attributes['gen_ai.tool.name'] === tool && e.attempt === attempt && e.callId === callId(),
      );
  // the tool's last call
  const callId = () =>
    recorder
      .ofType('call_started')
      .filter((e) => e.attributes['gen_ai.tool.name'] === tool)
      .at(-1)?.callId;
  await until(() => seen('attempt_started'), 15_000, `attempt ${attempt} of ${tool} to start`);
  const started = Date.now();
  while (reached && !(await reached())) {
    if (Date.now() - started > 15_000)
      throw new Error(`timed out waiting for attempt ${attempt} of ${tool} at the server`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const ended = () => {
    if (seen('attempt_finished')) return true;
    clock.skip(limitMs);
    return false;
  };
  await until(ended, 15_000, `attempt ${attempt} of ${tool} to end at its limit`);
}

/**
 * Which attempt {@link cutAttempt} cuts: number `attempt` of the last call of `tool`, at its limit `limitMs`;
 * `reached`: the server has it (by default: it started).
 */
export interface AttemptCut {
  readonly tool: string;
  readonly attempt: number;
  readonly limitMs: number;
  readonly reached?: () => boolean | Promise<boolean>;
}

/**
 * The client-side sockets that `fetch` (undici) opens from now on, seen through its public diagnostics channel:
 * `closed(port)` resolves once every one of them to `port` is closed (the client has seen a server restart).
 */
export function watchFetchSockets(): { closed(port: number): Promise<void>; stop(): void } {
  const sockets = new Set<Socket>();
  const onConnected = (message: unknown) => {
    const socket = (message as { socket?: Socket }).socket;
    if (socket) sockets.add(socket);
  };
  subscribe('undici:client:connected', onConnected);
  return {
    async closed(port) {
      const open = [...sockets].filter((socket) => socket.remotePort === port && !socket.closed);
      await Promise.all(open.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    },
    stop: () => unsubscribe('undici:client:connected', onConnected),
  };
}

/** A canned HTTP answer of the fault proxy. */
export interface ProxyAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: string;
}

export interface FaultProxy {
  readonly url: string;
  /** Decides per POSTed JSON-RPC message: a canned answer, or `undefined` to forward it. */
  decide: (message: { method?: string; params?: { name?: string } }) => ProxyAnswer | undefined;
  close(): Promise<void>;
}

/**
 * A reverse proxy on 127.0.0.1 in front of `target` (an MCP endpoint URL) that can answer a POST itself (a 429
 * with `Retry-After`, as a gateway does) and forwards everything else, streaming (SSE) responses included.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const server = httpCreateServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') {
        let message: unknown;
        try {
          message = JSON.parse(body.toString('utf8'));
        } catch {
          message = undefined;
        }
        const answer = message && !Array.isArray(message) ? proxy.decide(message as never) : undefined;
        if (answer) {
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          res.end(answer.body);
          return;
        }
      }
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (response) => {
          res.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${address.port}${upstream.pathname}`,
    decide: () => undefined,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
