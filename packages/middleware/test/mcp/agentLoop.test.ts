import { type ChaosHttpServer, type FaultPlan, startChaosHttpServer } from '@mcp-resilience/chaos';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import {
  CLASSIFICATION_META_KEY,
  type McpClassificationMeta,
  type McpResilienceOptions,
  observeFetch,
  withResilience,
} from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/createOtelRecorder.js';
import { createOtelHarness } from '../../src/otel/test-support/otelHarness.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { createFakeClock } from '../../src/testing/createFakeClock.js';
import { fast, httpTransport, newClient } from './harness.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function chaos(
  plan: FaultPlan,
  fetch?: ReturnType<typeof observeFetch>,
): Promise<{ http: ChaosHttpServer; client: Client }> {
  const http = await startChaosHttpServer({ plan, seed: 1 });
  cleanups.push(() => http.close());
  const client = newClient();
  await client.connect(httpTransport(http.url, fetch));
  cleanups.push(() => client.close().catch(() => {}));
  return { http, client };
}

const toolCalls = (http: ChaosHttpServer, tool: string) =>
  http.log.filter((e) => e.method === 'tools/call' && e.tool === tool);
const textOf = (result: unknown) =>
  ((result as CallToolResult).content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
const metaOf = (result: unknown) =>
  (result as CallToolResult)._meta?.[CLASSIFICATION_META_KEY] as McpClassificationMeta | undefined;

describe('negative cache: the model repeating a call that failed for good', () => {
  it('answers identical repeats (any key order) without a request, with the same result, and counts them', async () => {
    const { http, client } = await chaos({ faults: [] });
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'chaos', recorder, nonRetryableAs: 'result' });
    // A real schema violation: `get_weather` takes `city`, the model sends `town`.
    const call = { name: 'get_weather', arguments: { town: 'Paris', units: 'C' } };
    const first = await mcp.callTool(call);
    const second = await mcp.callTool({ name: 'get_weather', arguments: { units: 'C', town: 'Paris' } });
    const third = await mcp.callTool(call);

    expect(toolCalls(http, 'get_weather')).toHaveLength(1);
    expect(first.isError).toBe(true);
    expect(metaOf(first)).toMatchObject({ class: 'non_retryable', type: 'invalid_params' });
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    const avoided = recorder.ofType('model_retry_avoided');
    expect(avoided).toHaveLength(2);
    expect(avoided[0]).toMatchObject({
      endpoint: 'chaos',
      attributes: { 'mcp.resilience.server': 'chaos', 'gen_ai.tool.name': 'get_weather' },
      classification: { type: 'invalid_params' },
    });
    const original = recorder.ofType('call_finished').find((c) => c.operation === 'tools/call');
    expect(avoided[0]?.savedMs).toBeGreaterThanOrEqual(original?.durationMs ?? Number.NaN);

    // Other arguments are another call.
    await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(toolCalls(http, 'get_weather')).toHaveLength(2);
  });

  it('rethrows the same error in the throw form, and forgets after the TTL', async () => {
    const { http, client } = await chaos({
      faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }],
    });
    const clock = createFakeClock(1_000);
    const mcp = withResilience(client, { ...fast, server: 'chaos', clock, negativeCacheTtlMs: 5_000 });
    const call = { name: 'search', arguments: { query: 'mcp' } };
    const first = await mcp.callTool(call).catch((e: unknown) => e);
    const second = await mcp.callTool(call).catch((e: unknown) => e);
    expect(isResilienceError(first) && first.classification.type).toBe('invalid_params');
    expect(second).toBe(first);
    expect(toolCalls(http, 'search')).toHaveLength(1);
    await clock.advance(5_000);
    await mcp.callTool(call).catch(() => {});
    expect(toolCalls(http, 'search')).toHaveLength(2);
  });

  it('does not remember auth failures by default, and forgets after a tool that writes succeeded', async () => {
    const { http, client } = await chaos({
      faults: [{ kind: 'unauthorized', tool: 'search', times: 2 }],
    });
    const mcp = withResilience(client, { ...fast, server: 'chaos', nonRetryableAs: 'result' });
    const search = { name: 'search', arguments: { query: 'mcp' } };
    expect((await mcp.callTool(search)).isError).toBe(true);
    expect((await mcp.callTool(search)).isError).toBe(true);
    expect(toolCalls(http, 'search')).toHaveLength(2);

    const weather = { name: 'get_weather', arguments: { town: 'Paris' } };
    await mcp.callTool(weather);
    await mcp.callTool(weather);
    expect(toolCalls(http, 'get_weather')).toHaveLength(1);
    // A read-only tool succeeding changes nothing; a ticket created may have: the repeat goes through.
    expect((await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })).isError).toBeFalsy();
    await mcp.callTool(weather);
    expect(toolCalls(http, 'get_weather')).toHaveLength(2);
    expect((await mcp.callTool({ name: 'create_ticket', arguments: { title: 'x' } })).isError).toBeFalsy();
    await mcp.callTool(weather);
    expect(toolCalls(http, 'get_weather')).toHaveLength(3);
  });

  it('counts avoided repeats and saved time in OpenTelemetry metrics', async () => {
    const { client } = await chaos({ faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }] });
    const otel = createOtelHarness();
    cleanups.push(() => otel.shutdown());
    const recorder = createOtelRecorder({
      meterProvider: otel.meterProvider,
      tracerProvider: otel.tracerProvider,
    });
    const mcp = withResilience(client, { ...fast, server: 'chaos', recorder, nonRetryableAs: 'result' });
    // Inside the agent framework's tool span: the avoided repeats are events on it.
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    cleanups.push(() => context.disable());
    const tracer = otel.tracerProvider.getTracer('agent');
    await tracer.startActiveSpan('agent tool step', async (span) => {
      for (let i = 0; i < 3; i++) await mcp.callTool({ name: 'search', arguments: { query: 'x' } });
      span.end();
    });
    const [step] = otel.spansNamed('agent tool step');
    expect(step?.events.map((e) => [e.name, e.attributes?.['mcp.resilience.error.type']])).toEqual([
      ['mcp.resilience.model_retry_avoided', 'invalid_params'],
      ['mcp.resilience.model_retry_avoided', 'invalid_params'],
    ]);
    const attributes = {
      'mcp.resilience.server': 'chaos',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search',
      'mcp.resilience.error.type': 'invalid_params',
    };
    expect(await otel.points('mcp.resilience.model_retries.avoided')).toEqual([{ attributes, value: 2 }]);
    const [saved] = await otel.points('mcp.resilience.model_retries.saved_time');
    expect(saved?.attributes).toEqual(attributes);
    expect(saved?.value).toBeGreaterThan(0);
  });

  it('counts what the avoided repeats would have cost, with costPerAttempt', async () => {
    const { client } = await chaos({ faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }] });
    const otel = createOtelHarness();
    cleanups.push(() => otel.shutdown());
    const recorder = createOtelRecorder({
      meterProvider: otel.meterProvider,
      tracerProvider: otel.tracerProvider,
      costPerAttempt: 0.25,
    });
    const mcp = withResilience(client, { ...fast, server: 'chaos', recorder, nonRetryableAs: 'result' });
    for (let i = 0; i < 4; i++) await mcp.callTool({ name: 'search', arguments: { query: 'x' } });
    // 3 repeats of a call that failed at its one attempt: 3 × 1 × 0.25
    const [cost] = await otel.points('mcp.resilience.model_retries.saved_cost');
    expect(cost?.value).toBe(0.75);
    expect(cost?.attributes).toMatchObject({
      'gen_ai.tool.name': 'search',
      'mcp.resilience.error.type': 'invalid_params',
    });
  });

  it('names the option in validation errors', () => {
    const client = newClient();
    const bad = (options: McpResilienceOptions) => () => withResilience(client, options);
    expect(bad({ negativeCacheTtlMs: -1 })).toThrow(
      /option 'mcp.negativeCache.ttlMs' must be a finite number >= 0/,
    );
    expect(bad({ negativeCacheMaxEntries: 0 })).toThrow(
      /option 'mcp.negativeCache.maxEntries' must be an integer >= 1/,
    );
    expect(bad({ negativeCacheTypes: ['nope' as never] })).toThrow(/option 'mcp.negativeCache.types'/);
    expect(bad({ resultOn: ['circuit_open', 'later' as never] })).toThrow(
      /option 'mcp.resultOn' must be an array of 'non_retryable', 'circuit_open', 'shed', 'deadline', 'budget_exhausted', 'retries_exhausted', 'rate_limited', 'not_retried_unsafe', 'not_recovered', got \["circuit_open","later"\]/,
    );
    expect(bad({ fallbacks: [{} as never] })).toThrow(
      /option 'mcp.fallbacks' must be an array of MCP clients/,
    );
  });
});

describe('resultOn: terminal outcomes as results the model can act on', () => {
  it('turns retries exhausted and an open breaker into isError results with the classification', async () => {
    const { client } = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      maxAttempts: 2,
      // The breaker counts failed attempts: it opens on the call's second one.
      breakerConsecutiveFailures: 2,
      // the next probe after the default limit of a call without a deadline (breakerWaitLimitMs, 60 s)
      breakerBreakMs: 120_000,
      idempotency: 'assume-idempotent',
      resultOn: ['retries_exhausted', 'circuit_open'],
    });
    const exhausted = await mcp.callTool({ name: 'search', arguments: { query: 'a' } });
    expect(exhausted.isError).toBe(true);
    expect(textOf(exhausted)).toMatch(
      /^Tool 'search' failed 2 times in a row with a temporary error \(unavailable\); calling it again .*may succeed/,
    );
    expect(metaOf(exhausted)).toMatchObject({ class: 'retryable', reason: 'max_attempts', attempts: 2 });

    const open = await mcp.callTool({ name: 'search', arguments: { query: 'b' } });
    expect(textOf(open)).toMatch(/^Tool 'search' is unavailable: .* can only succeed after about \d+ s/);
    expect(metaOf(open)).toMatchObject({ type: 'circuit_open', reason: 'circuit_open', attempts: 0 });

    // Not opted in: still a ResilienceError.
    const plain = withResilience(client, { ...fast, server: 'chaos-plain', maxAttempts: 1 });
    const error = await plain
      .callTool({ name: 'search', arguments: { query: 'c' } })
      .catch((e: unknown) => e);
    expect(isResilienceError(error)).toBe(true);
  });
});

describe('resultOn: deadline', () => {
  it('a call that cannot finish before its deadline resolves to a result saying so', async () => {
    const { client } = await chaos({ faults: [{ kind: 'hang', delay: 5_000, tool: 'search' }] });
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      idempotency: 'assume-idempotent',
      timeoutMs: 300,
      attemptTimeoutMs: 200,
      resultOn: ['deadline'],
    });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'slow' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ reason: 'deadline', type: 'timeout' });
    expect(textOf(result)).toMatch(
      /^Tool 'search' did not finish within its time limit \(\d attempts?, timeout\); calling it again/,
    );
  });
});

describe('resultOn: every terminal outcome', () => {
  const all = [
    'circuit_open',
    'shed',
    'deadline',
    'budget_exhausted',
    'retries_exhausted',
    'rate_limited',
    'not_retried_unsafe',
    'not_recovered',
  ] as const;

  it('a Retry-After longer than retryAfterMaxMs resolves to rate_limited, saying how long to wait', async () => {
    const fetch = observeFetch();
    const { http, client } = await chaos(
      { faults: [{ kind: 'rate_limit', retryAfter: 120, tool: 'search' }] },
      fetch,
    );
    const mcp = withResilience(client, { ...fast, server: 'chaos', fetch, resultOn: [...all] });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({
      type: 'rate_limited',
      reason: 'retry_after_too_long',
      retryAfterMs: 120_000,
      attempts: 1,
    });
    expect(textOf(result)).toBe(
      "Tool 'search' failed (rate_limited) and its server asked to wait about 120 s before calling again, longer than this call may wait; call it again in about 120 s at the earliest, or continue without it.",
    );
    expect(toolCalls(http, 'search')).toHaveLength(1);
  });

  it('a failure that may have run a tool unsafe to repeat resolves to not_retried_unsafe', async () => {
    const { http, client } = await chaos({ faults: [{ kind: 'reset_after', tool: 'create_ticket' }] });
    const mcp = withResilience(client, { ...fast, server: 'chaos', resultOn: [...all] });
    const result = await mcp.callTool({ name: 'create_ticket', arguments: { title: 't' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ reason: 'not_idempotent', attempts: 1 });
    expect(metaOf(result)?.execution).not.toBe('not_sent');
    expect(textOf(result)).toMatch(
      /^Tool 'create_ticket' failed \(\w+\) after its request may already have reached the server, and was not retried because running it twice may not be safe; check whether it took effect/,
    );
    // It did run: the model is right to check before calling again.
    expect(toolCalls(http, 'create_ticket').map((e) => e.executed)).toEqual([true]);
  });

  it('an expired session with no reconnect resolves to not_recovered', async () => {
    const { client } = await chaos({ faults: [{ kind: 'session_expired', tool: 'search', times: 1 }] });
    const mcp = withResilience(client, { ...fast, server: 'chaos', resultOn: [...all] });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ type: 'session_expired', reason: 'condition_unmet' });
    expect(textOf(result)).toMatch(
      /^Tool 'search' failed because the connection to its server was lost \(session_expired\) and this could not be fixed/,
    );
  });

  it('a failure an inner resilience layer already retried resolves to retries_exhausted', async () => {
    const { http, client } = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const inner = withResilience(client, {
      ...fast,
      server: 'inner',
      maxAttempts: 2,
      idempotency: 'assume-idempotent',
    });
    const mcp = withResilience(inner, { ...fast, server: 'outer', resultOn: [...all] });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ reason: 'already_retried', attempts: 1 });
    expect(textOf(result)).toMatch(
      /^Tool 'search' failed with a temporary error \(\w+\) even after being retried/,
    );
    expect(toolCalls(http, 'search')).toHaveLength(2);
  });

  it("sheds a call when the breaker's wait queue is full (breakerMaxWaiting), as a result", async () => {
    const { http, client } = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      maxAttempts: 1,
      breakerConsecutiveFailures: 1,
      breakerMaxWaiting: 1,
      resultOn: ['shed'],
    });
    await mcp.callTool({ name: 'search', arguments: { query: 'open it' } }).catch(() => {});
    expect(toolCalls(http, 'search')).toHaveLength(1);
    // The breaker is open: the first call waits at its gate for the probe, the second finds the queue full.
    const waiting = mcp.callTool({ name: 'search', arguments: { query: 'a' } }).catch((e: unknown) => e);
    const shed = await mcp.callTool({ name: 'search', arguments: { query: 'b' } });
    expect(shed.isError).toBe(true);
    expect(metaOf(shed)).toMatchObject({ reason: 'shed', attempts: 0 });
    expect(textOf(shed)).toMatch(
      /^Tool 'search' was not called because its server is overloaded and too many calls are already waiting; call it again in (about \d+ s|a few seconds)/,
    );
    await waiting;
    // The shed call sent nothing; the waiting one was the probe.
    expect(toolCalls(http, 'search')).toHaveLength(2);
  });

  it('a retry the retry budget refuses resolves to budget_exhausted', async () => {
    const { http, client } = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      maxAttempts: 3,
      idempotency: 'assume-idempotent',
      // No retries at all: the first one is refused.
      budgetRatio: 0,
      budgetMinRetriesPerSecond: 0,
      resultOn: ['budget_exhausted'],
    });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ reason: 'budget_exhausted', type: 'unavailable', attempts: 1 });
    expect(textOf(result)).toMatch(
      /^Tool 'search' failed \(unavailable\) and was not retried because its server is failing many calls right now/,
    );
    expect(toolCalls(http, 'search')).toHaveLength(1);
  });
});

describe('fallback servers', () => {
  it('sends a call whose server fails to the next server that lists the tool, each with its own breaker', async () => {
    const primary = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const backup = await chaos({ faults: [] });
    const otel = createOtelHarness();
    cleanups.push(() => otel.shutdown());
    const memory = createMemoryRecorder();
    const otelRecorder = createOtelRecorder({
      meterProvider: otel.meterProvider,
      tracerProvider: otel.tracerProvider,
    });
    const recorder = {
      record: (e: Parameters<typeof memory.record>[0]) => {
        memory.record(e);
        otelRecorder.record(e);
      },
    };
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      recorder,
      maxAttempts: 2,
      // The breaker counts failed attempts: it opens on the call's second one.
      breakerConsecutiveFailures: 2,
      // the next probe after the default limit of a call without a deadline (breakerWaitLimitMs, 60 s)
      breakerBreakMs: 120_000,
      fallbacks: [{ client: backup.client, server: 'backup', tools: ['search', 'get_weather'] }],
    });
    const first = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(first.isError).toBeFalsy();
    expect(toolCalls(primary.http, 'search')).toHaveLength(2);
    expect(toolCalls(backup.http, 'search')).toHaveLength(1);
    // The primary's breaker is open now: straight to the backup.
    await mcp.callTool({ name: 'search', arguments: { query: 'again' } });
    expect(toolCalls(primary.http, 'search')).toHaveLength(2);
    expect(toolCalls(backup.http, 'search')).toHaveLength(2);

    const breakers = memory.ofType('breaker_transition').map((t) => [t.endpoint, t.to]);
    expect(breakers).toEqual([['primary', 'open']]);
    expect(memory.ofType('fallback').map((f) => [f.target, f.outcome, f.classification.type])).toEqual([
      ['backup', 'success', 'unavailable'],
      ['backup', 'success', 'circuit_open'],
    ]);
    const fallbackCalls = memory
      .ofType('call_finished')
      .filter((c) => c.attributes['mcp.resilience.fallback.from'] === 'primary');
    expect(fallbackCalls.map((c) => [c.endpoint, c.outcome])).toEqual([
      ['backup', 'success'],
      ['backup', 'success'],
    ]);
    expect(await otel.points('mcp.resilience.fallbacks')).toEqual([
      {
        attributes: {
          'mcp.resilience.server': 'primary',
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'search',
          'mcp.resilience.fallback.server': 'backup',
          'mcp.resilience.outcome': 'success',
        },
        value: 2,
      },
    ]);
    const spans = otel
      .spansNamed('mcp.resilience.call')
      .filter(
        (s) =>
          s.attributes['mcp.resilience.server'] === 'backup' &&
          s.attributes['mcp.method.name'] === 'tools/call',
      );
    expect(spans.map((s) => s.attributes['mcp.resilience.fallback.from'])).toEqual(['primary', 'primary']);

    // A tool the backup is not given for is not sent there.
    await mcp.callTool({ name: 'create_ticket', arguments: { title: 't' } }).catch(() => {});
    expect(toolCalls(backup.http, 'create_ticket')).toHaveLength(0);
  });

  it('skips a fallback that does not list the tool, and never falls back after a non-retryable failure', async () => {
    const primary = await chaos({
      faults: [
        { kind: 'http_error', status: 503, tool: 'search' },
        { kind: 'invalid_params', mode: 'error', tool: 'get_weather' },
      ],
    });
    const backup = await chaos({ faults: [] });
    // A backup client whose listing lacks `search`: the real server's list, filtered.
    const listing = backup.client.listTools.bind(backup.client);
    const lacking = new Proxy(backup.client, {
      get(target, property, receiver) {
        if (property !== 'request') return Reflect.get(target, property, receiver);
        return async (req: { method: string }, ...rest: unknown[]) => {
          const result = await (target.request as (...a: unknown[]) => Promise<unknown>).call(
            receiver,
            req,
            ...rest,
          );
          if (req.method !== 'tools/list') return result;
          const { tools } = result as { tools: Array<{ name: string }> };
          return { ...(result as object), tools: tools.filter((t) => t.name !== 'search') };
        };
      },
    });
    expect((await listing()).tools.some((t) => t.name === 'search')).toBe(true);
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      maxAttempts: 1,
      fallbacks: [lacking],
    });
    const error = await mcp.callTool({ name: 'search', arguments: { query: 'x' } }).catch((e: unknown) => e);
    expect(isResilienceError(error) && error.classification.type).toBe('unavailable');
    expect(toolCalls(backup.http, 'search')).toHaveLength(0);
    await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }).catch(() => {});
    expect(toolCalls(backup.http, 'get_weather')).toHaveLength(0);
  });

  it('when every fallback fails too, the last failure is what the call ends with (as a result when opted in)', async () => {
    const primary = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const backup = await chaos({ faults: [{ kind: 'http_error', status: 500, tool: 'search' }] });
    const recorder = createMemoryRecorder();
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      recorder,
      maxAttempts: 2,
      resultOn: ['retries_exhausted'],
      fallbacks: [{ client: backup.client, server: 'backup' }],
    });
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    expect(result.isError).toBe(true);
    expect(metaOf(result)).toMatchObject({ type: 'server_error', reason: 'max_attempts', attempts: 2 });
    expect(textOf(result)).toMatch(
      /^Tool 'search' failed 2 times in a row with a temporary error \(server_error\)/,
    );
    expect(toolCalls(primary.http, 'search')).toHaveLength(2);
    expect(toolCalls(backup.http, 'search')).toHaveLength(2);
    expect(recorder.ofType('fallback').map((f) => [f.target, f.outcome])).toEqual([['backup', 'failure']]);
  });

  it("a fallback's success of a tool that writes clears the negative cache, as the primary's does", async () => {
    const primary = await chaos({
      faults: [
        { kind: 'invalid_params', mode: 'error', tool: 'get_weather' },
        { kind: 'http_error', status: 503, tool: 'create_ticket' },
      ],
    });
    const backup = await chaos({ faults: [] });
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      maxAttempts: 1,
      nonRetryableAs: 'result',
      toolIdempotency: { create_ticket: true },
      fallbacks: [{ client: backup.client, server: 'backup', tools: ['create_ticket'] }],
    });
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    await mcp.callTool(weather);
    await mcp.callTool(weather);
    expect(toolCalls(primary.http, 'get_weather')).toHaveLength(1);
    const ticket = await mcp.callTool({ name: 'create_ticket', arguments: { title: 't' } });
    expect(ticket.isError).toBeFalsy();
    expect(toolCalls(backup.http, 'create_ticket')).toHaveLength(1);
    // The ticket was created (on the backup): the state may have changed, so the repeat goes through.
    await mcp.callTool(weather);
    expect(toolCalls(primary.http, 'get_weather')).toHaveLength(2);
  });

  it("after the fallbacks fail too, nothing of theirs is remembered: the model's repeat gets the primary's verdict", async () => {
    const primary = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    // The backup refuses the call for good (a cacheable type), the primary only failed it for now.
    const backup = await chaos({ faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }] });
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      maxAttempts: 1,
      fallbacks: [{ client: backup.client, server: 'backup' }],
    });
    const call = { name: 'search', arguments: { query: 'mcp' } };
    const first = await mcp.callTool(call).catch((e: unknown) => e);
    expect(isResilienceError(first) && first.classification.type).toBe('invalid_params');
    expect(toolCalls(primary.http, 'search')).toHaveLength(1);
    expect(toolCalls(backup.http, 'search')).toHaveLength(1);
    // The repeat goes to the primary again (whose server may be back), not answered with the backup's refusal.
    primary.http.setPlan({ faults: [] });
    const second = await mcp.callTool(call);
    expect(second.isError).toBeFalsy();
    expect(toolCalls(primary.http, 'search')).toHaveLength(2);
    expect(toolCalls(backup.http, 'search')).toHaveLength(1);
  });

  it("a fallback has the primary's breakerScope", async () => {
    const primary = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const backup = await chaos({ faults: [{ kind: 'http_error', status: 503, tool: 'search' }] });
    const recorder = createMemoryRecorder();
    const mcp = withResilience(primary.client, {
      ...fast,
      server: 'primary',
      recorder,
      maxAttempts: 1,
      breakerConsecutiveFailures: 1,
      breakerScope: 'tool',
      fallbacks: [{ client: backup.client, server: 'backup' }],
    });
    await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } }).catch(() => {});
    expect(toolCalls(backup.http, 'search')).toHaveLength(1);
    expect(recorder.ofType('breaker_transition').map((t) => [t.endpoint, t.to])).toEqual([
      ['primary/search', 'open'],
      ['backup/search', 'open'],
    ]);
  });
});

describe('negative cache before the annotations', () => {
  it('a repeat answered from the cache sends nothing, not even tools/list when the annotations are due', async () => {
    // The first listing is refused: the annotations are due again 30 s later.
    const { http, client } = await chaos({
      faults: [
        { kind: 'forbidden', method: 'tools/list', times: 1 },
        { kind: 'invalid_params', mode: 'error', tool: 'search' },
      ],
    });
    const clock = createFakeClock(1_000);
    const mcp = withResilience(client, { ...fast, server: 'chaos', clock, negativeCacheTtlMs: 120_000 });
    const call = { name: 'search', arguments: { query: 'mcp' } };
    const first = await mcp.callTool(call).catch((e: unknown) => e);
    expect(isResilienceError(first) && first.classification.type).toBe('invalid_params');
    const sent = http.log.length;
    expect(http.log.map((e) => e.method)).toContain('tools/list');
    await clock.advance(31_000);
    const second = await mcp.callTool(call).catch((e: unknown) => e);
    expect(second).toBe(first);
    expect(http.log.slice(sent)).toEqual([]);
  });
});
