import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isResilienceError, type ResilienceError } from '../../src/errors/ResilienceError.js';
import {
  CLASSIFICATION_META_KEY,
  type McpClassificationMeta,
  type McpResilienceOptions,
  type ObservedFetch,
  observeFetch,
  withResilience,
} from '../../src/mcp/index.js';
import { createMemoryRecorder, type MemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import {
  cutAttempt,
  type EverythingHttp,
  everythingStdio,
  fast,
  httpTransport,
  lastCall,
  newClient,
  skippableClock,
  startEverythingHttp,
  startFaultProxy,
  stopProcess,
  until,
  watchFetchSockets,
} from './harness.js';

/** `@modelcontextprotocol/server-everything`, a server nobody here wrote, over both of its transports. */
type Kind = 'stdio' | 'http';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A client connected to server-everything, with what it takes to reconnect it. */
interface Connection {
  readonly client: Client;
  readonly transport: () => Transport;
  readonly fetch?: ObservedFetch;
  /** The server process's id (stdio: the current child). */
  pid(): number;
  /** HTTP only. */
  readonly http?: EverythingHttp;
  close(): Promise<void>;
}

async function connectEverything(kind: Kind): Promise<Connection> {
  const client = newClient();
  if (kind === 'stdio') {
    let stdio: StdioClientTransport | undefined;
    const transport = () => {
      stdio = everythingStdio();
      return stdio;
    };
    await client.connect(transport());
    return {
      client,
      transport,
      pid: () => stdio?.pid ?? 0,
      async close() {
        if (stdio?.pid) await stopProcess(stdio.pid);
        await client.close().catch(() => {});
      },
    };
  }
  const http = await startEverythingHttp();
  const fetch = observeFetch();
  const transport = () => httpTransport(http.url, fetch);
  await client.connect(transport());
  return {
    client,
    transport,
    fetch,
    http,
    pid: () => http.process.pid ?? 0,
    async close() {
      await client.close().catch(() => {});
      await http.stop();
    },
  };
}

interface Setup extends Connection {
  readonly mcp: Client;
  readonly recorder: MemoryRecorder;
}

/** A fresh resilient wrapper (own breakers, own recorder) around a connection. */
function wrap(connection: Connection, options: McpResilienceOptions = {}): Setup {
  const recorder = createMemoryRecorder();
  const mcp = withResilience(connection.client, {
    ...fast,
    server: 'everything',
    recorder,
    reconnect: connection.transport,
    ...(connection.fetch ? { fetch: connection.fetch } : {}),
    ...options,
  });
  return { ...connection, mcp, recorder };
}

const metaOf = (result: unknown) =>
  (result as CallToolResult)._meta?.[CLASSIFICATION_META_KEY] as McpClassificationMeta | undefined;

async function rejection(promise: Promise<unknown>): Promise<ResilienceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isResilienceError(error)) throw new Error(`expected a ResilienceError, got ${String(error)}`);
  return error;
}

/** An attempt's time limit that only the test ends (`cutAttempt`), once the attempt has started. */
const LIMIT_MS = 20_000;

/** Marks a call the test awaits later as observed (no unhandled rejection if an assertion fails before). */
const observed = (call: Promise<unknown>) => void call.catch(() => {});

const text = (result: unknown) =>
  ((result as CallToolResult).content as Array<{ text?: string }>).map((c) => c.text).join('\n');

describe.each<Kind>(['stdio', 'http'])('server-everything over %s', (kind) => {
  // One server (and, for stdio, one process) for the tests that leave it healthy; each test wraps it afresh.
  let shared: Connection;
  beforeAll(async () => {
    shared = await connectEverything(kind);
  });
  afterAll(() => shared.close());
  const setup = (options?: McpResilienceOptions) => wrap(shared, options);

  it('attempts an invalid-arguments call exactly once and fails within one attempt', async () => {
    const { mcp, client, recorder } = setup();
    await mcp.listTools();

    const invalid = await mcp.callTool({ name: 'get-sum', arguments: { a: 'one', b: 2 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^MCP error -32602: Input validation error/);
    expect(metaOf(invalid)).toMatchObject({ class: 'non_retryable', type: 'invalid_params', attempts: 1 });
    const call = lastCall(recorder);
    expect(call.attempts).toBe(1);
    // Failed within its one attempt: no backoff, no wait at a breaker (timing is the benchmark's job).
    expect(recorder.ofType('retry_scheduled').filter((e) => e.callId === call.callId)).toHaveLength(0);
    expect(call.breakerWaitMs ?? 0).toBe(0);

    const unknown = await mcp.callTool({ name: 'no-such-tool', arguments: {} });
    expect(metaOf(unknown)).toMatchObject({ type: 'method_not_found', attempts: 1 });

    // Not a tool: a JSON-RPC error, thrown. Read-only, but retrying cannot help.
    const prompt = await rejection(mcp.getPrompt({ name: 'no-such-prompt' }));
    expect(prompt.attempts).toBe(1);
    expect(prompt.classification).toMatchObject({ class: 'non_retryable', execution: 'not_sent' });

    const asResult = withResilience(client, {
      ...fast,
      server: 'everything-result',
      nonRetryableAs: 'result',
    });
    const explained = await asResult.callTool({ name: 'get-sum', arguments: { a: 'one', b: 2 } });
    expect(explained.isError).toBe(true);
    expect(text(explained)).toMatch(/^MCP error -32602: Input validation error/); // the server's text, kept
    expect(text(explained)).toMatch(/not retried \(1 attempt made\)[\s\S]*corrected arguments/);
  });

  it('fail-fast: opens the breaker when the server stops answering, rejects, and closes it with a probe', async () => {
    // fail-fast: the rejected call does not wait for the probe; the break ends when the test says so
    const clock = skippableClock();
    const { mcp, client, recorder, pid } = setup({
      breakerConsecutiveFailures: 4,
      maxAttempts: 2,
      breakerWait: false,
      breakerBreakMs: 20_000,
      breakerMaxBreakMs: 20_000,
      clock,
      // each attempt's limit (the SDK's `timeout` would be the whole call's); room for a loaded CI machine's probe
      attemptTimeoutMs: 500,
    });
    await mcp.listTools();
    const echo = { name: 'echo', arguments: { message: 'hi' } };
    const options = {};

    process.kill(pid(), 'SIGSTOP');
    try {
      const first = await rejection(mcp.callTool(echo, undefined, options));
      expect(first).toMatchObject({ attempts: 2, classification: { type: 'timeout' } }); // read-only: retried
      // Four failed attempts in a row: the second call's second attempt opens the breaker.
      const second = await rejection(mcp.callTool(echo, undefined, options));
      expect(second).toMatchObject({ attempts: 2, reason: 'max_attempts' });
      expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open']);
      const rejected = await rejection(mcp.callTool(echo, undefined, options));
      expect(rejected).toMatchObject({ attempts: 0, reason: 'circuit_open' });
      expect(recorder.ofType('breaker_wait_started')).toEqual([]); // rejected without waiting
    } finally {
      process.kill(pid(), 'SIGCONT');
    }
    await client.ping(); // unwrapped, no tight limit: the resumed server has answered its backlog
    clock.skip(20_000); // the break is over
    const probe = await mcp.callTool(echo);
    expect(text(probe)).toBe('Echo: hi');
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open', 'half_open', 'closed']);
  });

  it('retries a timeout of a read-only tool, and not of a tool overridden as not idempotent', async () => {
    // each attempt's limit (the SDK's `timeout` would be the whole call's), ended by the test once it started
    const clock = skippableClock();
    const { mcp, client, recorder: seen } = setup({ maxAttempts: 2, attemptTimeoutMs: LIMIT_MS, clock });
    await mcp.listTools();
    // answered long after its attempts are cut
    const slow = { name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 1 } };

    // Annotated readOnlyHint: a timeout (it may have run) is retried.
    const retried = mcp.callTool(slow);
    observed(retried);
    for (const attempt of [1, 2])
      await cutAttempt(clock, seen, { tool: slow.name, attempt, limitMs: LIMIT_MS });
    const readOnly = await rejection(retried);
    expect(readOnly).toMatchObject({
      attempts: 2,
      reason: 'max_attempts',
      classification: { type: 'timeout' },
    });

    // Annotations from an untrusted server are hints: the per-tool override wins.
    const recorder = createMemoryRecorder();
    const distrusting = withResilience(client, {
      ...fast,
      recorder,
      server: 'everything-distrusting',
      maxAttempts: 2,
      attemptTimeoutMs: LIMIT_MS,
      clock,
      toolIdempotency: { 'trigger-long-running-operation': false },
    });
    const distrusted = distrusting.callTool(slow);
    observed(distrusted);
    await cutAttempt(clock, recorder, { tool: slow.name, attempt: 1, limitMs: LIMIT_MS });
    const once = await rejection(distrusted);
    expect(once).toMatchObject({
      attempts: 1,
      reason: 'not_idempotent',
      classification: { execution: 'unknown' },
    });
    expect(recorder.ofType('call_started').map((c) => c.operation)).toEqual(['tools/call']); // no listing needed
  });

  it('recovers a restarted or exited server through reconnect', async () => {
    // Its own server: this test kills it.
    const sockets = watchFetchSockets();
    cleanups.push(() => sockets.stop());
    const connection = await connectEverything(kind);
    cleanups.push(() => connection.close());
    const { mcp, client, recorder, http, pid } = wrap(connection);
    const echo = { name: 'echo', arguments: { message: 'again' } };
    expect(text(await mcp.callTool(echo))).toBe('Echo: again');
    const before = pid();
    if (http) {
      await http.stop();
      await sockets.closed(http.port); // the client has seen its keep-alive connections close
      const restarted = await startEverythingHttp(http.port); // same port, no sessions
      cleanups.push(() => restarted.stop());
    } else {
      await stopProcess(before);
      await until(() => client.transport === undefined, 5_000, 'the client to see the exit');
    }

    expect(text(await mcp.callTool(echo))).toBe('Echo: again');
    if (http) {
      // server-everything answers an unknown session with 400 "No valid session ID provided" (not 404).
      expect(lastCall(recorder).attempts).toBe(2);
      expect(recorder.ofType('failure_classified').at(-1)).toMatchObject({
        decision: 'reconnect',
        classification: { class: 'conditional', type: 'session_expired', execution: 'not_sent' },
      });
    } else {
      // The exit was seen before the call: it reconnects before sending, in the first attempt.
      expect(lastCall(recorder).attempts).toBe(1);
      expect(pid()).not.toBe(before);
    }
  });
});

describe('server-everything over Streamable HTTP behind a rate-limiting gateway', () => {
  it('waits at least the Retry-After of a 429, then succeeds; fails at once when it passes the deadline', async () => {
    const server = await startEverythingHttp();
    cleanups.push(() => server.stop());
    const proxy = await startFaultProxy(server.url);
    cleanups.push(() => proxy.close());
    const fetch = observeFetch();
    const client = newClient();
    await client.connect(httpTransport(proxy.url, fetch));
    cleanups.push(() => client.close().catch(() => {}));
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'everything', recorder, fetch });
    await mcp.listTools();

    let limited = 0;
    let retryAfter = '1';
    proxy.decide = (message) => {
      if (message.method !== 'tools/call' || limited > 0) return undefined;
      limited++;
      return {
        status: 429,
        headers: { 'retry-after': retryAfter },
        body: JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Too Many Requests' },
          id: null,
        }),
      };
    };
    const start = Date.now();
    const sum = await mcp.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(Date.now() - start).toBeGreaterThanOrEqual(1000);
    expect(text(sum)).toBe('The sum of 1 and 2 is 3.');
    expect(lastCall(recorder).attempts).toBe(2);
    expect(recorder.ofType('failure_classified').at(-1)).toMatchObject({
      decision: 'wait',
      classification: { type: 'rate_limited', retryAfterMs: 1000, source: 'mcp.http.status' },
    });

    limited = 0;
    retryAfter = new Date(Date.now() + 30_000).toUTCString(); // an HTTP date this time
    const error = await rejection(
      mcp.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }, undefined, { maxTotalTimeout: 2_000 }),
    );
    const { callId } = lastCall(recorder);
    expect(recorder.ofType('retry_scheduled').filter((e) => e.callId === callId)).toEqual([]); // failed at once
    expect(error).toMatchObject({
      attempts: 1,
      reason: 'deadline',
      classification: { type: 'rate_limited' },
    });
    expect(error.classification.retryAfterMs).toBeGreaterThan(28_000);
  });
});
