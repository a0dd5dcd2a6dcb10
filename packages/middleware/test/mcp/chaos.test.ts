import {
  CANCELLED_METHOD,
  type ChaosHttpServer,
  type FaultPlan,
  type GroundTruthEntry,
  startChaosHttpServer,
} from '@mcp-resilience/chaos';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
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
  attemptsSeen,
  chaosStdio,
  fast,
  httpTransport,
  lastCall,
  newClient,
  skippableClock,
  tempDir,
  until,
  watchFetchSockets,
} from './harness.js';

type Kind = 'http' | 'stdio';

/** One chaos server, over either transport, with its ground-truth log (`initialize` left out). */
interface Chaos {
  readonly transport: () => Transport;
  readonly fetch?: ObservedFetch;
  /** The log so far (HTTP: live; stdio: the settled entries, all of them once the client closed). */
  log(): GroundTruthEntry[];
  /** HTTP only. */
  readonly http?: ChaosHttpServer;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const withoutInitialize = (entries: readonly GroundTruthEntry[]) =>
  entries.filter((e) => e.method !== 'initialize');

async function startChaos(kind: Kind, plan: FaultPlan): Promise<Chaos> {
  if (kind === 'http') {
    const http = await startChaosHttpServer({ plan, seed: 1 });
    cleanups.push(() => http.close());
    const fetch = observeFetch();
    return {
      transport: () => httpTransport(http.url, fetch),
      fetch,
      log: () => withoutInitialize(http.log),
      http,
    };
  }
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const stdio = chaosStdio(dir, plan);
  return { transport: stdio.transport, log: () => withoutInitialize(stdio.log()) };
}

interface Setup {
  readonly chaos: Chaos;
  readonly client: Client;
  readonly mcp: Client;
  readonly recorder: MemoryRecorder;
  /** Closes the client (a stdio server then exits and its log is complete). */
  close(): Promise<void>;
}

async function setup(kind: Kind, plan: FaultPlan, options: McpResilienceOptions = {}): Promise<Setup> {
  const chaos = await startChaos(kind, plan);
  const client = newClient();
  await client.connect(chaos.transport());
  const close = () => client.close().catch(() => {});
  cleanups.push(close);
  const recorder = createMemoryRecorder();
  const mcp = withResilience(client, {
    ...fast,
    server: 'chaos',
    recorder,
    reconnect: chaos.transport,
    ...(chaos.fetch ? { fetch: chaos.fetch } : {}),
    ...options,
  });
  return { chaos, client, mcp, recorder, close };
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

const entriesOf = (log: readonly GroundTruthEntry[], tool: string) => log.filter((e) => e.tool === tool);

/**
 * Marks a call the test awaits later as observed: if an assertion fails before, the call, left running, ends
 * after the cleanup closed its client and server (a failed reconnection) without an unhandled rejection that
 * would hide the real failure. The test still awaits the promise and sees its outcome.
 */
const observed = (call: Promise<unknown>) => void call.catch(() => {});

/** A time limit (or a breaker's break) that only the test ends, at an event (`skippableClock`). */
const LONG_MS = 20_000;
/** Options for a breaker whose break the test ends itself (`clock.skip(LONG_MS)`). */
const longBreak = { breakerBreakMs: LONG_MS, breakerMaxBreakMs: LONG_MS } as const;

/** Waits until the server's log (another process's, or the in-process server's) shows what `predicate` wants. */
const logged = (chaos: Chaos, predicate: (log: readonly GroundTruthEntry[]) => boolean, what: string) =>
  until(() => predicate(chaos.log()), 15_000, what);

/** Whether the server logged a `hang` fault for `tool` (a hang without delay is logged as it arrives). */
const hungOn = (tool: string) => (log: readonly GroundTruthEntry[]) =>
  log.some((e) => e.tool === tool && e.fault === 'hang');

/** Whether the server logged `n` requests with a `hang` fault. */
const hangs = (n: number) => (log: readonly GroundTruthEntry[]) =>
  log.filter((e) => e.fault === 'hang').length === n;

/** Whether `call_finished` for the call `callId` came with a retry or a wait at a breaker. */
const retriedOrWaited = (recorder: MemoryRecorder, callId: number) =>
  recorder.ofType('retry_scheduled').some((e) => e.callId === callId) ||
  recorder.ofType('breaker_wait_started').some((e) => e.callId === callId);

describe.each<Kind>(['http', 'stdio'])('chaos server over %s', (kind) => {
  it('attempts an invalid-arguments call exactly once and fails within one attempt', async () => {
    const plan: FaultPlan = { faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }] };
    const { mcp, recorder, chaos, client, close } = await setup(kind, plan);
    await mcp.listTools();

    // The SDK's own input validation: an isError result, returned with its classification.
    const invalid = await mcp.callTool({ name: 'get_weather', arguments: { city: 42 } });
    expect(invalid.isError).toBe(true);
    expect(metaOf(invalid)).toMatchObject({ class: 'non_retryable', type: 'invalid_params', attempts: 1 });
    const first = lastCall(recorder);
    expect(first.attempts).toBe(1);
    // no backoff, no wait at a breaker (timing is the benchmark's job)
    const waitedOrRetried = (c: typeof first) =>
      (c.breakerWaitMs ?? 0) > 0 || recorder.ofType('retry_scheduled').some((e) => e.callId === c.callId);
    expect(waitedOrRetried(first)).toBe(false);

    // A JSON-RPC -32602 error (as Go servers answer): thrown, classified, not retried.
    const error = await rejection(mcp.callTool({ name: 'search', arguments: { query: 'mcp' } }));
    expect(error.attempts).toBe(1);
    expect(error.reason).toBe('non_retryable');
    expect(error.classification).toMatchObject({ class: 'non_retryable', type: 'invalid_params' });
    const second = lastCall(recorder);
    expect(second.attempts).toBe(1);
    expect(waitedOrRetried(second)).toBe(false);

    // The 'result' form: the model reads what was wrong, that it was not retried, and what to change.
    const asResult = withResilience(client, { ...fast, server: 'chaos-result', nonRetryableAs: 'result' });
    const result = await asResult.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
    expect(text).toMatch(/non-retryable error \(invalid_params\)/);
    expect(text).toMatch(/not retried \(1 attempt made\)/);
    expect(text).toMatch(/corrected arguments/);
    expect(metaOf(result)).toMatchObject({ type: 'invalid_params', attempts: 1 });

    await close();
    const log = chaos.log();
    expect(entriesOf(log, 'get_weather')).toHaveLength(1);
    expect(entriesOf(log, 'search')).toHaveLength(2);
    expect(entriesOf(log, 'search').every((e) => e.fault === 'invalid_params' && !e.executed)).toBe(true);
  });

  it('waits for the delay a rate-limited tool result announces, and fails at once past the deadline', async () => {
    const plan: FaultPlan = {
      faults: [
        { kind: 'tool_error', tool: 'search', text: 'Rate limit exceeded. Retry after 300ms.', times: 1 },
        { kind: 'tool_error', tool: 'get_weather', text: 'Rate limit exceeded. Retry after 30s.', times: 1 },
      ],
    };
    const { mcp, recorder, chaos, close } = await setup(kind, plan, { breakerScope: 'tool' });
    await mcp.listTools();

    const start = Date.now();
    const ok = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(Date.now() - start).toBeGreaterThanOrEqual(300);
    expect(ok.isError).toBeFalsy();
    expect(lastCall(recorder).attempts).toBe(2);
    const limited = recorder.ofType('failure_classified').at(-1)!;
    expect(limited.classification).toMatchObject({
      type: 'rate_limited',
      retryAfterMs: 300,
      healthNeutral: true,
    });
    expect(limited.decision).toBe('wait');

    const result = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }, undefined, {
      maxTotalTimeout: 2_000,
    });
    expect(retriedOrWaited(recorder, lastCall(recorder).callId)).toBe(false); // failed at once
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ type: 'rate_limited', retryAfterMs: 30_000, reason: 'deadline' });

    await close();
    expect(entriesOf(chaos.log(), 'search')).toHaveLength(2);
    expect(entriesOf(chaos.log(), 'get_weather')).toHaveLength(1);
  });

  it('fail-fast: opens the breaker when the server stops answering, rejects, and closes it with a probe', async () => {
    const plan: FaultPlan = {
      faults: [{ kind: 'hang', tool: 'get_weather', times: kind === 'stdio' ? 4 : undefined }],
    };
    const clock = skippableClock();
    const { mcp, recorder, chaos, close } = await setup(kind, plan, {
      breakerConsecutiveFailures: 4,
      maxAttempts: 2,
      breakerWait: false, // fail-fast: the rejected call does not wait for the probe
      ...longBreak,
      clock,
      // each attempt's limit (the SDK's `timeout` would be the whole call's); room for a loaded CI machine's probe
      attemptTimeoutMs: 400,
    });
    await mcp.listTools();
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    const options = {};

    const first = await rejection(mcp.callTool(weather, undefined, options));
    expect(first.classification.type).toBe('timeout');
    expect(first.attempts).toBe(2); // read-only: retried
    // Four failed attempts in a row: the second call's second attempt opens the breaker.
    const second = await rejection(mcp.callTool(weather, undefined, options));
    expect(second).toMatchObject({ attempts: 2, reason: 'max_attempts' });
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open']);

    const requests = () => chaos.log().filter((e) => e.method !== CANCELLED_METHOD);
    // A timed-out request may reach the server after the client gave up on it: count once all four are there.
    await logged(chaos, hangs(4), 'the four hung requests on the server');
    const sentBefore = requests().length;
    const fast = await rejection(mcp.callTool(weather, undefined, options));
    expect(retriedOrWaited(recorder, lastCall(recorder).callId)).toBe(false); // rejected without waiting
    expect(fast.attempts).toBe(0);
    expect(fast.classification.type).toBe('circuit_open');
    expect(lastCall(recorder).outcome).toBe('rejected');

    chaos.http?.setPlan({ faults: [] });
    clock.skip(LONG_MS); // the break is over
    const probe = await mcp.callTool(weather);
    expect(probe.isError).toBeFalsy();
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open', 'half_open', 'closed']);

    if (kind === 'http') expect(requests().length).toBe(sentBefore + 1); // the rejected call never reached it
    await close();
    const weatherLog = entriesOf(chaos.log(), 'get_weather');
    expect(weatherLog.map((e) => e.fault)).toEqual(['hang', 'hang', 'hang', 'hang', null]);
  });

  it('does not retry a timeout of the destructive tool, and retries one of the read-only tool', async () => {
    const plan: FaultPlan = {
      faults: [
        // answered long after the client's 100 ms timeout
        { kind: 'hang', tool: 'create_ticket', delay: 1_000, times: 1 },
        { kind: 'hang', tool: 'get_weather', times: 1 },
      ],
    };
    const clock = skippableClock();
    const { mcp, recorder, chaos, close } = await setup(kind, plan, {
      maxAttempts: 3,
      attemptTimeoutMs: LONG_MS,
      clock,
    });
    await mcp.listTools();

    // The SDK's request timeout is the call's limit: the ticket's one attempt ends with it, long before the answer.
    const error = await rejection(
      mcp.callTool({ name: 'create_ticket', arguments: { title: 'printer on fire' } }, undefined, {
        timeout: 100,
      }),
    );
    expect(error.attempts).toBe(1);
    expect(error.reason).toBe('not_idempotent');
    expect(error.classification).toMatchObject({ type: 'timeout', execution: 'unknown' });

    // The server has the request that hangs: its attempt's time limit passes now (the retry has all the time).
    const pending = mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    observed(pending);
    await logged(chaos, hungOn('get_weather'), 'the hung get_weather on the server');
    clock.skip(LONG_MS);
    const weather = await pending;
    expect(weather.isError).toBeFalsy();
    expect(lastCall(recorder).attempts).toBe(2);

    const ticketRan = (log: readonly GroundTruthEntry[]) =>
      entriesOf(log, 'create_ticket')[0]?.executed === true;
    await logged(chaos, ticketRan, 'the delayed ticket to execute on the server');
    await close();
    const tickets = entriesOf(chaos.log(), 'create_ticket');
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ fault: 'hang', executed: true });
    expect(entriesOf(chaos.log(), 'get_weather').map((e) => [e.fault, e.executed])).toEqual([
      ['hang', false],
      [null, true],
    ]);
  });

  it('agrees with the ground-truth log on every attempt', async () => {
    const plan: FaultPlan = {
      faults: [
        { kind: 'invalid_params', tool: 'search', times: 1 },
        { kind: 'tool_error', tool: 'get_weather', text: 'Service temporarily unavailable', times: 1 },
        { kind: 'reset_after', tool: 'get_weather', times: 1 },
        { kind: 'rate_limit', tool: 'search', retryAfter: 0, times: 1 },
        { kind: 'http_error', tool: 'search', status: 502, times: 1 },
        { kind: 'hang', tool: 'create_ticket', times: 1 },
        { kind: 'reset', tool: 'create_ticket', times: 1 },
      ],
    };
    const clock = skippableClock();
    const { mcp, recorder, chaos, close } = await setup(kind, plan, {
      maxAttempts: 3,
      attemptTimeoutMs: LONG_MS,
      clock,
    });
    const call = (name: string, args: Record<string, unknown>) =>
      mcp.callTool({ name, arguments: args }).catch((e: unknown) => e);

    await mcp.listTools();
    await call('search', { query: 'first' }); // invalid_params: one attempt
    await call('search', { query: 'second' }); // http: 429 then 502 then ok; stdio: ok
    await call('get_weather', { city: 'Paris' }); // tool_error, (http: reset_after,) ok
    const hanging = call('create_ticket', { title: 'a' }); // hang: one attempt, cut once it hangs, not retried
    await logged(chaos, hungOn('create_ticket'), 'the hung ticket on the server');
    clock.skip(LONG_MS);
    await hanging;
    await call('create_ticket', { title: 'b' }); // http: reset (ambiguous: not retried); stdio: ok
    await close();

    const attempts = attemptsSeen(recorder);
    const log = chaos.log().filter((e) => e.method !== CANCELLED_METHOD);
    expect(attempts.map((a) => [a.method, a.tool])).toEqual(log.map((e) => [e.method, e.tool]));
    // The attempt that timed out on the hanging ticket was cancelled on the server.
    const hung = log.find((e) => e.fault === 'hang');
    expect(
      chaos
        .log()
        .filter((e) => e.method === CANCELLED_METHOD)
        .map((e) => e.requestId),
    ).toContain(hung?.requestId);
    for (const [i, attempt] of attempts.entries()) {
      const entry = log[i]!;
      const where = `attempt ${i + 1} (${entry.tool ?? entry.method}, fault ${entry.fault})`;
      if (attempt.outcome === 'success') {
        expect(entry.fault, where).toBeNull();
        expect(entry.executed, where).toBe(true);
      } else {
        expect(entry.fault, where).not.toBeNull();
        if (attempt.execution === 'not_sent') expect(entry.executed, where).toBe(false);
        if (entry.executed) expect(attempt.execution, where).not.toBe('not_sent');
      }
    }
    const expected =
      kind === 'http'
        ? ['invalid_params', 'rate_limited', 'unavailable', 'unavailable', 'network', 'timeout', 'network']
        : ['invalid_params', 'unavailable', 'timeout'];
    expect(attempts.filter((a) => a.outcome === 'failure').map((a) => a.type)).toEqual(expected);
    expect(recorder.ofType('call_finished').map((c) => c.attempts)).toEqual(
      kind === 'http' ? [1, 1, 3, 3, 1, 1] : [1, 1, 1, 2, 1, 1],
    );
  });
});

describe('chaos server over Streamable HTTP', () => {
  it('holds a call at the open breaker, sending nothing, and sends it once a probe finds the server back', async () => {
    const clock = skippableClock();
    const { mcp, recorder, chaos } = await setup(
      'http',
      { faults: [{ kind: 'hang', tool: 'get_weather' }] },
      { breakerConsecutiveFailures: 2, maxAttempts: 1, ...longBreak, clock },
    );
    await mcp.listTools();
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    for (let i = 0; i < 2; i++) await rejection(mcp.callTool(weather, undefined, { timeout: 100 }));
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open']);

    // Requests only: the timed-out attempts' `notifications/cancelled` may still arrive meanwhile.
    const sent = () => chaos.log().filter((e) => e.method !== CANCELLED_METHOD).length;
    // A timed-out request may reach the server after the client gave up on it: count once both are there.
    await logged(chaos, hangs(2), 'the two hung requests on the server');
    const sentBefore = sent();
    const waiting = mcp.callTool(weather, undefined, { timeout: 2 * LONG_MS });
    observed(waiting);
    await until(() => recorder.ofType('breaker_wait_started').length === 1, 15_000, 'the call at the gate');
    expect(sent()).toBe(sentBefore); // nothing sent while the breaker is open
    chaos.http?.setPlan({ faults: [] });
    clock.skip(LONG_MS); // the break is over: the probe goes
    const result = await waiting;
    expect(result.isError).toBeFalsy();
    // It waited for the probe, a break after opening.
    const opened = recorder.ofType('breaker_transition')[0]!.time;
    const [finished] = recorder.ofType('breaker_wait_finished');
    expect(finished!.time - opened).toBeGreaterThanOrEqual(LONG_MS);
    expect(recorder.ofType('breaker_wait_finished').map((e) => e.outcome)).toEqual(['released']);
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open', 'half_open', 'closed']);
    expect(sent()).toBe(sentBefore + 1); // the call itself was the probe
  });

  it('waits at least the Retry-After of a 429, then succeeds; fails at once when it passes the deadline', async () => {
    const plan: FaultPlan = {
      faults: [
        { kind: 'rate_limit', tool: 'create_ticket', retryAfter: 1, times: 1 },
        { kind: 'rate_limit', tool: 'search', retryAfter: 30, times: 1 },
      ],
    };
    const { mcp, recorder, chaos } = await setup('http', plan, { breakerScope: 'tool' });
    await mcp.listTools();

    const start = Date.now();
    const ticket = await mcp.callTool({ name: 'create_ticket', arguments: { title: 'a' } });
    expect(Date.now() - start).toBeGreaterThanOrEqual(1000);
    expect(ticket.isError).toBeFalsy();
    const limited = recorder.ofType('failure_classified').at(-1)!;
    // From the Retry-After header, seen by observeFetch; not sent, so even the destructive tool is retried.
    expect(limited.classification).toMatchObject({
      class: 'conditional',
      type: 'rate_limited',
      execution: 'not_sent',
      retryAfterMs: 1000,
      source: 'mcp.http.status',
    });
    expect(entriesOf(chaos.log(), 'create_ticket').map((e) => [e.fault, e.executed])).toEqual([
      ['rate_limit', false],
      [null, true],
    ]);

    const error = await rejection(
      mcp.callTool({ name: 'search', arguments: { query: 'mcp' } }, undefined, { maxTotalTimeout: 2_000 }),
    );
    expect(retriedOrWaited(recorder, lastCall(recorder).callId)).toBe(false); // failed at once
    expect(error.reason).toBe('deadline');
    expect(error.attempts).toBe(1);
    expect(error.classification).toMatchObject({ type: 'rate_limited', retryAfterMs: 30_000 });
  });

  it('recovers a restarted server (session gone) through reconnect', async () => {
    const first = await startChaosHttpServer({ seed: 1 });
    const port = first.port;
    const sockets = watchFetchSockets();
    cleanups.push(() => sockets.stop());
    const fetch = observeFetch();
    let server: ChaosHttpServer = first;
    cleanups.push(() => server.close());
    const transport = () => httpTransport(server.url, fetch);
    const client = newClient();
    await client.connect(transport());
    cleanups.push(() => client.close().catch(() => {}));
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'chaos', recorder, fetch, reconnect: transport });
    const ticket = { name: 'create_ticket', arguments: { title: 'a' } };
    expect((await mcp.callTool(ticket)).isError).toBeFalsy();
    const oldSession = client.transport?.sessionId;

    await first.close();
    await sockets.closed(port); // the client has seen its keep-alive connections close, as after a restart
    server = await startChaosHttpServer({ seed: 1, port });

    const result = await mcp.callTool(ticket);
    expect(result.isError).toBeFalsy();
    expect(lastCall(recorder).attempts).toBe(2);
    expect(recorder.ofType('failure_classified').at(-1)).toMatchObject({
      decision: 'reconnect',
      classification: { type: 'session_expired', execution: 'not_sent' },
    });
    expect(client.transport?.sessionId).toBeDefined();
    expect(client.transport?.sessionId).not.toBe(oldSession);
    // The destructive tool ran once on the new server: the 404 means the first try was not executed.
    expect(server.log.filter((e) => e.tool === 'create_ticket').map((e) => e.executed)).toEqual([
      false,
      true,
    ]);
  });

  it('without reconnect, surfaces an expired session without retrying it', async () => {
    const plan: FaultPlan = {
      faults: [{ kind: 'session_expired', tool: 'search', times: 1 }],
      unknownSession: 400,
    };
    const { mcp, chaos } = await setup('http', plan, { reconnect: undefined });
    const error = await rejection(mcp.callTool({ name: 'search', arguments: { query: 'mcp' } }));
    expect(error.attempts).toBe(1);
    expect(error.reason).toBe('condition_unmet');
    expect(error.classification).toMatchObject({ class: 'conditional', type: 'session_expired' });
    expect(entriesOf(chaos.log(), 'search')).toHaveLength(1);
  });
});

describe('chaos server over stdio', () => {
  it('reconnects after the server process exits, retrying only what is safe', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const crashing = chaosStdio(
      dir,
      { faults: [{ kind: 'crash', tool: ['get_weather', 'create_ticket'] }] },
      'a',
    );
    const healthy = chaosStdio(dir, { faults: [] }, 'b');
    let spawned = 0;
    const client = newClient();
    await client.connect(crashing.transport());
    cleanups.push(() => client.close().catch(() => {}));
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      recorder,
      reconnect: () => {
        spawned++;
        return spawned === 1 ? healthy.transport() : crashing.transport();
      },
    });
    await mcp.listTools();

    // Read-only: the connection closed mid-call (-32000), reconnected, retried on the new process.
    const weather = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(weather.isError).toBeFalsy();
    expect(recorder.ofType('failure_classified').at(-1)).toMatchObject({
      decision: 'reconnect',
      classification: { type: 'connection_closed', execution: 'unknown' },
    });
    expect(spawned).toBe(1);

    await mcp.close();
    // Closed by its caller: not reconnected behind its back.
    const closed = await rejection(mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }));
    expect(closed.classification).toMatchObject({ type: 'connection_closed', execution: 'not_sent' });
    expect(spawned).toBe(1);

    expect(readEntries(crashing.log(), 'get_weather')).toEqual([['crash', false]]);
    expect(readEntries(healthy.log(), 'get_weather')).toEqual([[null, true]]);
  });

  it('does not replay a destructive call that a crash cut, and reconnects for the next call', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const crashing = chaosStdio(dir, { faults: [{ kind: 'crash', tool: 'create_ticket', times: 1 }] }, 'a');
    const healthy = chaosStdio(dir, { faults: [] }, 'b');
    const client = newClient();
    await client.connect(crashing.transport());
    cleanups.push(() => client.close().catch(() => {}));
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'chaos', recorder, reconnect: healthy.transport });
    await mcp.listTools();

    const error = await rejection(mcp.callTool({ name: 'create_ticket', arguments: { title: 'a' } }));
    expect(error.attempts).toBe(1);
    expect(error.reason).toBe('not_idempotent');
    expect(error.classification).toMatchObject({ type: 'connection_closed', execution: 'unknown' });

    // The next call finds no connection, reconnects first, then sends.
    const next = await mcp.callTool({ name: 'create_ticket', arguments: { title: 'b' } });
    expect(next.isError).toBeFalsy();
    expect(lastCall(recorder).attempts).toBe(1);
    await client.close();
    expect(readEntries(crashing.log(), 'create_ticket')).toEqual([['crash', false]]);
    expect(readEntries(healthy.log(), 'create_ticket')).toEqual([[null, true]]);
  });
});

function readEntries(log: readonly GroundTruthEntry[], tool: string) {
  return entriesOf(log, tool).map((e) => [e.fault, e.executed]);
}
