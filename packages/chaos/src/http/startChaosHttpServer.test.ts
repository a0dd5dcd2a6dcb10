import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Fault } from '../plan/FaultPlan.js';
import { type ChaosHttpOptions, type ChaosHttpServer, startChaosHttpServer } from './startChaosHttpServer.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close();
});

async function start(options: ChaosHttpOptions): Promise<ChaosHttpServer> {
  const server = await startChaosHttpServer(options);
  open.push(server);
  return server;
}

/** Starts a server with these faults and connects a client, which records every HTTP response it gets. */
async function setUp(faults: Fault[], options: ChaosHttpOptions = {}) {
  const server = await start({ plan: { faults }, ...options });
  const { client, transport, responses } = await connect(server.url);
  return { server, client, transport, responses };
}

async function connect(url: string, sessionId?: string) {
  const responses: Response[] = [];
  const recordingFetch = async (input: string | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    responses.push(response);
    return response;
  };
  const client = new Client({ name: 'chaos-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch, sessionId });
  await client.connect(transport);
  open.push(client);
  return { client, transport, responses };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error as Error & { code?: number; cause?: { code?: string } },
  );

const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
const ticket = { name: 'create_ticket', arguments: { title: 'Printer on fire' } };
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { text: string }[])[0]?.text;
const calls = (server: ChaosHttpServer, tool: string) => server.log.filter((entry) => entry.tool === tool);

describe('startChaosHttpServer', () => {
  it('serves the tools with their annotations on 127.0.0.1', async () => {
    const { server, client } = await setUp([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(annotations.get_weather).toMatchObject({ readOnlyHint: true });
    expect(annotations.search).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(annotations.create_ticket).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(annotations.generate_report).toMatchObject({ readOnlyHint: true });
    expect(JSON.parse(textOf(await client.callTool(weather)) ?? '')).toMatchObject({ city: 'Paris' });
  });

  it('logs every request with its session, method, tool and execution', async () => {
    const { server, client, transport } = await setUp([]);
    await client.callTool(ticket);
    const invalid = await client.callTool({ name: 'get_weather', arguments: { city: 'Atlantis' } });
    expect(invalid).toMatchObject({ isError: true });
    expect(textOf(invalid)).toMatch(/^Invalid city: "Atlantis"/);
    const badArgs = await client.callTool({ name: 'search', arguments: { query: 42 } });
    expect(textOf(badArgs)).toMatch(/^MCP error -32602: Input validation error/);
    const sessionId = transport.sessionId;
    expect(server.log).toEqual([
      {
        seq: 1,
        time: expect.any(Number),
        transport: 'http',
        sessionId,
        method: 'initialize',
        requestId: 0,
        fault: null,
        executed: true,
      },
      {
        seq: 2,
        time: expect.any(Number),
        transport: 'http',
        sessionId,
        method: 'tools/call',
        tool: 'create_ticket',
        requestId: 1,
        fault: null,
        executed: true,
      },
      {
        seq: 3,
        time: expect.any(Number),
        transport: 'http',
        sessionId,
        method: 'tools/call',
        tool: 'get_weather',
        requestId: 2,
        fault: null,
        executed: true,
      },
      {
        seq: 4,
        time: expect.any(Number),
        transport: 'http',
        sessionId,
        method: 'tools/call',
        tool: 'search',
        requestId: 3,
        fault: null,
        executed: false,
      },
    ]);
  });

  it('invalid_params: an isError result with the TypeScript SDK text, or a thrown -32602', async () => {
    const { server, client } = await setUp([
      { kind: 'invalid_params', times: 1 },
      { kind: 'invalid_params', mode: 'error', message: 'city must be a string' },
    ]);
    const result = await client.callTool(weather);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool get_weather: Invalid input: expected string, received number',
    );
    const error = await failure(client.callTool(weather));
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('Invalid arguments for tool get_weather: city must be a string');
    expect(calls(server, 'get_weather').map((e) => [e.fault, e.executed])).toEqual([
      ['invalid_params', false],
      ['invalid_params', false],
    ]);
  });

  it('tool_error: an isError result with the given text', async () => {
    const { client } = await setUp([{ kind: 'tool_error', text: 'rate limit exceeded. Retry after 2s' }]);
    const result = await client.callTool(weather);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'rate limit exceeded. Retry after 2s' }],
      isError: true,
    });
  });

  it('unauthorized and forbidden: 401 and 403 before the MCP layer', async () => {
    const { server, client, responses } = await setUp([
      { kind: 'unauthorized', tool: 'get_weather' },
      { kind: 'forbidden', tool: 'create_ticket' },
    ]);
    const unauthorized = await failure(client.callTool(weather));
    expect(unauthorized).toBeInstanceOf(StreamableHTTPError);
    expect(unauthorized.code).toBe(401);
    expect(responses.at(-1)?.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const forbidden = await failure(client.callTool(ticket));
    expect(forbidden.code).toBe(403);
    expect(server.log.slice(-2).map((e) => [e.fault, e.executed])).toEqual([
      ['unauthorized', false],
      ['forbidden', false],
    ]);
  });

  it('rate_limit: 429 with Retry-After and a JSON-RPC error body', async () => {
    const { client, responses } = await setUp([{ kind: 'rate_limit', retryAfter: 2 }]);
    const error = await failure(client.callTool(weather));
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect(error.code).toBe(429);
    expect(error.message).toContain('"code":-32000');
    expect(error.message).toContain('Rate limit exceeded. Retry after 2s.');
    expect(responses.at(-1)?.headers.get('retry-after')).toBe('2');
  });

  it('http_error: a 5xx with a proxy HTML body', async () => {
    const { client, responses } = await setUp([{ kind: 'http_error', status: 502 }]);
    const error = await failure(client.callTool(weather));
    expect(error.code).toBe(502);
    expect(error.message).toContain('<title>502 Bad Gateway</title>');
    expect(responses.at(-1)?.headers.get('content-type')).toBe('text/html');
  });

  it('hang: never answers, so the client times out; with a delay it answers late', async () => {
    const { server, client } = await setUp([
      { kind: 'hang', tool: 'create_ticket' },
      { kind: 'hang', tool: 'get_weather', delay: 300 },
    ]);
    const error = await failure(client.callTool(ticket, undefined, { timeout: 200 }));
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.RequestTimeout);
    const started = Date.now();
    expect((await client.callTool(weather)).isError).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(calls(server, 'create_ticket')[0]).toMatchObject({ fault: 'hang', executed: false });
    expect(calls(server, 'get_weather')[0]).toMatchObject({ fault: 'hang', executed: true });
  });

  it('reset: the socket dies before the tool runs; reset_after: after it ran', async () => {
    const { server, client } = await setUp([
      { kind: 'reset', tool: 'create_ticket', times: 1 },
      { kind: 'reset_after', tool: 'create_ticket', times: 1 },
    ]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(client.callTool(ticket));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe('fetch failed');
      expect(['UND_ERR_SOCKET', 'ECONNRESET']).toContain(error.cause?.code);
    }
    const created = JSON.parse(textOf(await client.callTool(ticket)) ?? '');
    // The blind retry after reset_after made a duplicate: TCK-1 exists but its creator never heard of it.
    expect(created.id).toBe('TCK-2');
    expect(calls(server, 'create_ticket').map((e) => [e.fault, e.executed])).toEqual([
      ['reset', false],
      ['reset_after', true],
      [null, true],
    ]);
  });

  it('reset_after drops progress notifications and destroys the socket after the tool ran', async () => {
    const { server, client } = await setUp([{ kind: 'reset_after', tool: 'generate_report' }], {
      stepMs: 10,
    });
    const progress: number[] = [];
    const request = { name: 'generate_report', arguments: { topic: 'x', steps: 3 } };
    const error = await failure(
      client.callTool(request, undefined, { onprogress: (p) => progress.push(p.progress) }),
    );
    expect(error.message).toBe('fetch failed');
    expect(progress).toEqual([]);
    expect(calls(server, 'generate_report')[0]).toMatchObject({ fault: 'reset_after', executed: true });
  });

  it('session_expired: the session answers 404 from then on; a new session works', async () => {
    const { server, client, transport } = await setUp([{ kind: 'session_expired', times: 1 }]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(client.callTool(weather));
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect(error.code).toBe(404);
      expect(error.message).toContain('Session not found');
    }
    const { client: fresh, transport: freshTransport } = await connect(server.url);
    expect((await fresh.callTool(weather)).isError).toBeUndefined();
    expect(freshTransport.sessionId).not.toBe(transport.sessionId);
    expect(calls(server, 'get_weather').map((e) => [e.fault, e.executed])).toEqual([
      ['session_expired', false],
      [null, false],
      [null, true],
    ]);
  });

  it('session_expired with unknownSession 400: the server-everything variant', async () => {
    const server = await start({ plan: { unknownSession: 400, faults: [{ kind: 'session_expired' }] } });
    const { client } = await connect(server.url);
    const error = await failure(client.callTool(weather));
    expect(error.code).toBe(400);
    expect(error.message).toContain('{"code":-32000,"message":"Bad Request: No valid session ID provided"}');
  });

  it('answers 404 for an unknown session id and 400 without one', async () => {
    const server = await start({});
    const error = await failure(
      connect(server.url, 'no-such-session').then(({ client }) => client.callTool(weather)),
    );
    expect(error.code).toBe(404);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
    expect(server.log.map((e) => [e.method, e.fault, e.executed])).toEqual([
      ['tools/call', null, false],
      ['tools/list', null, false],
    ]);
  });

  it('DELETE ends the session', async () => {
    const { server, transport } = await setUp([]);
    const sessionId = transport.sessionId;
    await transport.terminateSession();
    const { client: stale } = await connect(server.url, sessionId);
    expect((await failure(stale.callTool(weather))).code).toBe(404);
  });

  it('crash: the socket dies and every session is forgotten', async () => {
    const { server, client } = await setUp([{ kind: 'crash', tool: 'create_ticket' }]);
    const { client: other } = await connect(server.url);
    const error = await failure(client.callTool(ticket));
    expect(error.message).toBe('fetch failed');
    expect((await failure(client.callTool(weather))).code).toBe(404);
    expect((await failure(other.callTool(weather))).code).toBe(404);
    expect(calls(server, 'create_ticket')[0]).toMatchObject({ fault: 'crash', executed: false });
  });

  it('outage: 503 (or a reset) from `from` to `to`, for every method', async () => {
    let now = 0;
    const { server, client } = await setUp(
      [
        { kind: 'outage', from: 1000, to: 2000 },
        { kind: 'outage', mode: 'reset', from: 3000, to: 4000 },
      ],
      { clock: () => now },
    );
    await client.callTool(weather);
    now = 1000;
    expect((await failure(client.callTool(weather))).code).toBe(503);
    expect((await failure(client.listTools())).code).toBe(503);
    now = 2000;
    await client.callTool(weather);
    now = 3500;
    expect((await failure(client.callTool(weather))).message).toBe('fetch failed');
    now = 4000;
    await client.callTool(weather);
    expect(server.log.slice(1).map((e) => [e.time, e.fault])).toEqual([
      [0, null],
      [1000, 'outage'],
      [1000, 'outage'],
      [2000, null],
      [3500, 'outage'],
      [4000, null],
    ]);
  });

  it('flapping: periodically down', async () => {
    let now = 0;
    const { client } = await setUp([{ kind: 'flapping', period: 1000, duty: 0.5 }], { clock: () => now });
    const outcomes: (number | string)[] = [];
    for (const time of [0, 499, 500, 999, 1000, 1500]) {
      now = time;
      outcomes.push(
        await client.callTool(weather).then(
          () => 'ok',
          (error: { code: number }) => error.code,
        ),
      );
    }
    expect(outcomes).toEqual(['ok', 'ok', 503, 503, 'ok', 503]);
  });

  it('generate_report sends progress notifications when asked', async () => {
    const { client } = await setUp([], { stepMs: 10 });
    const progress: { progress: number; total?: number }[] = [];
    const request = { name: 'generate_report', arguments: { topic: 'outages', steps: 3 } };
    const result = await client.callTool(request, undefined, { onprogress: (p) => progress.push(p) });
    expect(textOf(result)).toMatch(/^Report: outages/);
    expect(progress.map(({ progress, total }) => [progress, total])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });

  it('the same seed gives the same faults', async () => {
    const faults: Fault[] = [
      { kind: 'tool_error', probability: 0.3 },
      { kind: 'http_error', probability: 0.3 },
    ];
    const run = async (seed: number) => {
      const { server, client } = await setUp(faults, { seed });
      for (let i = 0; i < 20; i++) await client.callTool(weather).catch(() => undefined);
      return server.log.map((entry) => entry.fault);
    };
    const first = await run(5);
    expect(await run(5)).toEqual(first);
    expect(await run(6)).not.toEqual(first);
    expect(new Set(first)).toEqual(new Set([null, 'tool_error', 'http_error']));
  });

  it('setPlan switches faults at runtime', async () => {
    const { server, client } = await setUp([]);
    await client.callTool(weather);
    server.setPlan({ faults: [{ kind: 'http_error', status: 500 }] });
    expect((await failure(client.callTool(weather))).code).toBe(500);
  });
});

describe('faults drawn per call', () => {
  it('fail the same arguments on every attempt, and others never, over the real transport', async () => {
    const { client, server } = await setUp([{ kind: 'unauthorized', probability: 0.5, per: 'call' }], {
      seed: 3,
    });
    const cities = ['Amsterdam', 'Berlin', 'London', 'New York', 'Paris', 'Sydney', 'Tokyo'];
    const round = () =>
      Promise.all(
        cities.map((city) =>
          client.callTool({ name: 'get_weather', arguments: { city } }).then(
            () => 'ok',
            (e: unknown) => (e instanceof StreamableHTTPError ? `http ${e.code}` : 'other'),
          ),
        ),
      );
    const first = await round();
    expect(first).toContain('http 401');
    expect(first).toContain('ok');
    expect(await round()).toEqual(first);
    expect(await round()).toEqual(first);
    const faulted = server.log.filter((e) => e.fault === 'unauthorized').length;
    expect(faulted).toBe(3 * first.filter((x) => x === 'http 401').length);
  });
});
