import { startChaosHttpServer } from '@mcp-resilience/chaos';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import { connectWithResilience, observeFetch, withResilience } from '../../src/mcp/index.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { fast, httpTransport, newClient } from './harness.js';
import { startV2HttpServer } from './v2/startV2HttpServer.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const modernClient = (capabilities = {}) =>
  new ClientV2(
    { name: 'mcp-resilience-test', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each([
  ['SDK v2, protocol 2026-07-28', '2026-07-28'],
  ['SDK v1, protocol 2025-11-25', '2025-11-25'],
] as const)('a response stream broken mid-request (%s)', (_, protocol) => {
  it('is detected at once; a read-only call is re-issued with a new request id, a destructive one is not', async () => {
    const chaos = await startChaosHttpServer({
      protocol,
      plan: {
        faults: [
          { kind: 'stream_broken', tool: 'get_weather', times: 1 },
          { kind: 'stream_broken', tool: 'create_ticket', times: 1 },
        ],
      },
    });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const client = protocol === '2026-07-28' ? modernClient() : newClient();
    await client.connect(
      protocol === '2026-07-28'
        ? new HttpTransportV2(new URL(chaos.url), { fetch })
        : httpTransport(chaos.url, fetch),
    );
    cleanups.push(() => client.close());
    const recorder = createMemoryRecorder();
    // Without the detection, each lost request would wait for the 30 s attempt limit.
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      fetch,
      recorder,
      attemptTimeoutMs: 30_000,
    });

    const weather = (await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })) as {
      isError?: boolean;
    };
    expect(weather.isError).toBeUndefined();
    const calls = chaos.log.filter((e) => e.tool === 'get_weather');
    expect(calls.map((e) => [e.fault, e.executed])).toEqual([
      ['stream_broken', true],
      [null, true],
    ]);
    expect(calls[1]?.requestId).not.toBe(calls[0]?.requestId);
    const lost = recorder.events.find((e) => e.type === 'failure_classified');
    expect(lost?.type === 'failure_classified' && lost.classification.source).toBe('mcp.http.stream_broken');

    const ticket = await failure(mcp.callTool({ name: 'create_ticket', arguments: { title: 'x' } }));
    expect(
      isResilienceError(ticket) && [ticket.classification.type, ticket.classification.execution],
    ).toEqual(['network', 'unknown']);
    expect(isResilienceError(ticket) && ticket.reason).toBe('not_idempotent');
    expect(chaos.log.filter((e) => e.tool === 'create_ticket')).toHaveLength(1);
  });
});

describe('2026-07-28: no sessions', () => {
  it.each([
    ['SDK v2, 2026-07-28', 'v2', '2026-07-28'],
    ['SDK v2, 2025-11-25', 'v2', '2025-11-25'],
    ['SDK v1, 2025-11-25', 'v1', '2025-11-25'],
  ] as const)(
    '%s: a 404 about a session re-initializes only where there is a session',
    async (_, line, protocol) => {
      const chaos = await startChaosHttpServer({
        protocol,
        plan: { faults: [{ kind: 'session_expired', tool: 'get_weather', times: 1 }] },
      });
      cleanups.push(() => chaos.close());
      let reconnections = 0;
      const transport = () =>
        line === 'v2' ? new HttpTransportV2(new URL(chaos.url)) : httpTransport(chaos.url);
      const client =
        line === 'v1'
          ? newClient()
          : protocol === '2026-07-28'
            ? modernClient()
            : new ClientV2({ name: 'mcp-resilience-test', version: '1.0.0' });
      await client.connect(transport());
      cleanups.push(() => client.close());
      const mcp = withResilience(client, {
        ...fast,
        server: 'chaos',
        reconnect: () => {
          reconnections++;
          return transport();
        },
      });
      const outcome = await failure(mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }));
      if (protocol === '2026-07-28') {
        expect(isResilienceError(outcome) && outcome.classification.type).toBe('not_found');
        expect(reconnections).toBe(0);
      } else {
        expect(outcome).toBeUndefined(); // re-initialized, then retried: the weather came back
        expect(reconnections).toBe(1);
        expect(chaos.log.filter((e) => e.method === 'initialize')).toHaveLength(2);
      }
    },
  );
});

describe('SDK v2 on 2026-07-28: HTTP statuses', () => {
  it('waits for the Retry-After of a 429, retries a 503, and the call succeeds', async () => {
    const chaos = await startChaosHttpServer({
      protocol: '2026-07-28',
      plan: {
        faults: [
          { kind: 'rate_limit', retryAfter: 1, tool: 'get_weather', times: 1 },
          { kind: 'http_error', status: 503, tool: 'get_weather', times: 1 },
        ],
      },
    });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const client = modernClient();
    await client.connect(new HttpTransportV2(new URL(chaos.url), { fetch }));
    cleanups.push(() => client.close());
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'chaos', fetch, recorder });
    const weather = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(weather.isError).toBeUndefined();
    const failures = recorder.events.flatMap((e) => (e.type === 'failure_classified' ? [e] : []));
    expect(failures.map((e) => [e.classification.type, e.classification.retryAfterMs])).toEqual([
      ['rate_limited', 1000],
      ['unavailable', undefined],
    ]);
    expect(failures[0]?.delayMs).toBeGreaterThanOrEqual(1000);
    expect(chaos.log.filter((e) => e.tool === 'get_weather').map((e) => e.fault)).toEqual([
      'rate_limit',
      'http_error',
      null,
    ]);
  });
});

describe('2026-07-28: multi-round-trip requests', () => {
  it('classifies the missing capability (-32021) a real v2 server answers: non-retryable, not sent', async () => {
    const server = await startV2HttpServer();
    cleanups.push(() => server.close());
    const client = modernClient(); // declares no elicitation capability
    await client.connect(new HttpTransportV2(new URL(server.url)));
    cleanups.push(() => client.close());
    const mcp = withResilience(client, { ...fast, server: 'v2' });
    const error = await failure(
      mcp.callTool({ name: 'confirm', arguments: { action: 'deploy' } }, { allowInputRequired: true }),
    );
    expect(isResilienceError(error) && error.classification).toMatchObject({
      class: 'non_retryable',
      type: 'invalid_request',
      execution: 'not_sent',
      source: 'mcp.protocol.missing_capability',
    });
    expect(isResilienceError(error) && error.attempts).toBe(1);
  });

  it('passes an input_required result through as a result: one attempt, a success, never retried', async () => {
    const server = await startV2HttpServer();
    cleanups.push(() => server.close());
    const client = modernClient({ elicitation: { form: {} } });
    await client.connect(new HttpTransportV2(new URL(server.url)));
    cleanups.push(() => client.close());
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, { ...fast, server: 'v2', recorder });
    const result = (await mcp.callTool(
      { name: 'confirm', arguments: { action: 'deploy' } },
      { allowInputRequired: true },
    )) as unknown as { resultType?: string; inputRequests?: Record<string, unknown> };
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests ?? {})).toEqual(['confirm']);
    const call = recorder.events.filter((e) => e.type === 'call_finished').at(-1);
    expect(call?.type === 'call_finished' && [call.outcome, call.attempts]).toEqual(['success', 1]);
    expect(server.log.executions.filter((e) => e.tool === 'confirm')).toHaveLength(1);
  });
});

describe('connectWithResilience', () => {
  it('retries a connection answered with 503s, respecting their Retry-After, then the client works', async () => {
    const chaos = await startChaosHttpServer({
      plan: { faults: [{ kind: 'http_error', status: 503, retryAfter: 1, method: 'initialize', times: 2 }] },
    });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(newClient(), () => httpTransport(chaos.url, fetch), {
      ...fast,
      server: 'chaos',
      fetch,
      recorder,
      maxAttempts: 4,
    });
    cleanups.push(() => mcp.close());
    const connect = recorder.events.find((e) => e.type === 'call_finished');
    expect(
      connect?.type === 'call_finished' && [connect.operation, connect.outcome, connect.attempts],
    ).toEqual(['initialize', 'success', 3]);
    const waits = recorder.events.filter((e) => e.type === 'retry_scheduled').map((e) => e.delayMs);
    expect(waits.every((ms) => ms >= 1000)).toBe(true);
    const weather = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(weather.isError).toBeUndefined();
    expect(chaos.log.filter((e) => e.method === 'initialize').map((e) => e.fault)).toEqual([
      'http_error',
      'http_error',
      null,
    ]);
  });

  it('fails at once, classified, when the server does not speak the client’s protocol revision (-32022)', async () => {
    const chaos = await startChaosHttpServer({ protocol: '2026-07-28' });
    cleanups.push(() => chaos.close());
    const error = await failure(
      connectWithResilience(newClient(), () => httpTransport(chaos.url), { ...fast, server: 'chaos' }),
    );
    expect(isResilienceError(error) && error.attempts).toBe(1);
    expect(isResilienceError(error) && error.classification).toMatchObject({
      class: 'non_retryable',
      type: 'invalid_request',
      source: 'mcp.http.jsonrpc_body.mcp.protocol.unsupported_version',
    });
  });

  it('rejects a transport that is not a factory, naming the argument', async () => {
    await expect(
      connectWithResilience(newClient(), httpTransport('http://127.0.0.1:1/mcp') as never),
    ).rejects.toThrow(/transport must be a function/);
  });
});

describe("variantKey 'session' on protocol 2026-07-28 (no sessions)", () => {
  it('splits the calls to one server per call, not all into one variant, and warns once naming the option', async () => {
    const chaos = await startChaosHttpServer({ protocol: '2026-07-28', plan: { faults: [] } });
    cleanups.push(() => chaos.close());
    const client = modernClient();
    await client.connect(new HttpTransportV2(new URL(chaos.url)));
    cleanups.push(() => client.close());
    const recorder = createMemoryRecorder();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    cleanups.push(async () => warn.mockRestore());
    const mcp = withResilience(client, {
      ...fast,
      server: 'chaos',
      recorder,
      variants: { control: {}, candidate: {} },
      split: { control: 0.5, candidate: 0.5 },
      variantKey: 'session',
    });
    for (let i = 0; i < 24; i++) await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    const variants = recorder
      .ofType('call_finished')
      .filter((e) => e.operation === 'tools/call')
      .map((e) => e.attributes['mcp.resilience.variant']);
    expect(variants).toHaveLength(24);
    expect(new Set(variants)).toEqual(new Set(['control', 'candidate']));
    const warnings = warn.mock.calls.filter((c) => String(c[0]).includes('variantKey: "session"'));
    expect(warnings).toHaveLength(1);
  });
});
