import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import {
  CLASSIFICATION_META_KEY,
  type McpClassificationMeta,
  observeFetch,
  withResilience,
} from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/index.js';
import { createOtelHarness } from '../../src/otel/test-support/otelHarness.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { cutAttempt, fast, skippableClock } from './harness.js';
import { startV2HttpServer } from './v2/startV2HttpServer.js';
import type { V2ServerLog } from './v2/v2ToolServer.js';

const STDIO_SERVER = fileURLToPath(new URL('./v2/v2StdioServer.ts', import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Era = '2025-11-25' | '2026-07-28';

/** An attempt's time limit that only the test ends (`cutAttempt`), once the server runs the attempt. */
const LIMIT_MS = 20_000;

/** A v2 SDK client, on the 2025 handshake (the SDK's default) or pinned to 2026-07-28. */
const v2Client = (era: Era) =>
  new Client(
    { name: 'mcp-resilience-test', version: '1.0.0' },
    era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );

/** A real v2 SDK server over `transport`, a connected v2 client, and a way to read what the server saw. */
async function connectV2(transport: 'stdio' | 'http', era: Era) {
  const client = v2Client(era);
  if (transport === 'http') {
    const server = await startV2HttpServer();
    cleanups.push(() => server.close());
    const fetch = observeFetch();
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch }));
    cleanups.push(() => client.close());
    return { client, fetch, serverLog: async (): Promise<V2ServerLog> => server.log };
  }
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', STDIO_SERVER] }),
  );
  cleanups.push(() => client.close());
  // The server's process has its log; the `log` tool reads it (called without the resilience layer).
  const serverLog = async (): Promise<V2ServerLog> => {
    const result = await client.callTool({ name: 'log', arguments: {} });
    return JSON.parse((result.content[0] as { text: string }).text) as V2ServerLog;
  };
  return { client, fetch: undefined, serverLog };
}

describe.each([
  ['stdio', '2025-11-25'],
  ['stdio', '2026-07-28'],
  ['http', '2025-11-25'],
  ['http', '2026-07-28'],
] as const)('an SDK v2 client, %s, protocol %s', (transport, era) => {
  it('calls through the loop; a timed-out read-only call is re-issued with a new request id, and the server is told to stop each attempt', async () => {
    const { client, fetch, serverLog } = await connectV2(transport, era);
    const clock = skippableClock();
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    await client.listTools(); // the server is up (stdio: the process started)
    const recorder = createMemoryRecorder();
    const mcp = withResilience(client, {
      ...fast,
      server: 'v2',
      recorder,
      attemptTimeoutMs: LIMIT_MS, // ended by the test once the server runs the attempt (cutAttempt)
      clock,
      maxAttempts: 2,
      ...(fetch ? { fetch } : {}),
    });

    const echoed = await mcp.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hi' }]);

    const call = mcp.callTool({ name: 'slow', arguments: { ms: 60_000 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const running = (n: number) => async () =>
      (await serverLog()).executions.filter((e) => e.tool === 'slow').length >= n;
    for (const attempt of [1, 2]) {
      await cutAttempt(clock, recorder, {
        tool: 'slow',
        attempt,
        limitMs: LIMIT_MS,
        reached: running(attempt),
      });
    }
    const error = await call;
    expect(isResilienceError(error) && error.classification.type).toBe('timeout');
    expect(isResilienceError(error) && error.attempts).toBe(2);

    // An `isError` result comes back as a result, classified, not retried.
    const failed = await mcp.callTool({ name: 'create_item', arguments: { name: 'bad' } });
    expect(failed.isError).toBe(true);
    const meta = failed._meta?.[CLASSIFICATION_META_KEY] as McpClassificationMeta;
    expect([meta.type, meta.attempts]).toEqual(['tool_error', 1]);

    await expect
      .poll(async () => (await serverLog()).cancelled.length, { timeout: 15_000, interval: 50 })
      .toBe(
        // A 2025-era request on the SDK's stateless HTTP serving runs on a per-request instance that never sees the
        // `notifications/cancelled` the client sends (the chaos server's sessions do: test/mcp/cancellation.test.ts).
        transport === 'http' && era === '2025-11-25' ? 0 : 2,
      );
    const log = await serverLog();
    const slow = log.executions.filter((e) => e.tool === 'slow').map((e) => e.requestId);
    expect(slow).toHaveLength(2);
    expect(new Set(slow).size).toBe(2);
    if (!(transport === 'http' && era === '2025-11-25')) {
      expect(log.cancelled.map((c) => c.requestId).sort()).toEqual([...slow].sort());
    }
    expect(log.executions.filter((e) => e.tool === 'create_item')).toHaveLength(1);
    const calls = recorder.events.filter((e) => e.type === 'call_finished');
    expect(calls.map((c) => [c.operation, c.attributes['gen_ai.tool.name'], c.outcome, c.attempts])).toEqual([
      ['tools/list', undefined, 'success', 1], // the annotations, listed once before the first tool call
      ['tools/call', 'echo', 'success', 1],
      ['tools/call', 'slow', 'failure', 2],
      ['tools/call', 'create_item', 'failure', 1],
    ]);
  });
});

describe('SDK v2 telemetry per the MCP semantic conventions', () => {
  it('names attempt spans `{method} {tool}` and sets jsonrpc.request.id, mcp.protocol.version, and error.type = tool_error or the JSON-RPC code', async () => {
    const otel = createOtelHarness();
    cleanups.push(() => otel.shutdown());
    const { client, fetch } = await connectV2('http', '2026-07-28');
    const mcp = withResilience(client, {
      ...fast,
      server: 'v2',
      fetch,
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
    });
    await mcp.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await mcp.callTool({ name: 'create_item', arguments: { name: 'bad' } });
    await expect(mcp.getPrompt({ name: 'nope' })).rejects.toThrow();

    const echo = otel.spansNamed('tools/call echo');
    expect(echo).toHaveLength(1);
    const attributes = echo[0]?.attributes ?? {};
    expect(attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(attributes['mcp.session.id']).toBeUndefined(); // 2026-07-28 has no sessions

    const toolError = otel.spansNamed('tools/call create_item')[0]?.attributes ?? {};
    expect(toolError['error.type']).toBe('tool_error');
    expect(toolError['mcp.resilience.error.type']).toBe('tool_error');

    const prompt = otel.spansNamed('prompts/get nope')[0]?.attributes ?? {};
    expect(prompt['error.type']).toMatch(/^-32\d{3}$/);
    expect(prompt['rpc.response.status_code']).toBe(prompt['error.type']);
    expect(prompt['mcp.resilience.error.type']).not.toMatch(/^-/); // the classifier's type stays readable

    const operation = await otel.points('mcp.client.operation.duration');
    const typeOf = (method: string, tool?: string) =>
      operation.find(
        (p) => p.attributes['mcp.method.name'] === method && p.attributes['gen_ai.tool.name'] === tool,
      )?.attributes['error.type'];
    expect(typeOf('tools/call', 'echo')).toBeUndefined();
    expect(typeOf('tools/call', 'create_item')).toBe('tool_error');
    expect(typeOf('prompts/get')).toBe(prompt['error.type']);
    expect(operation.every((p) => p.attributes['mcp.protocol.version'] === '2026-07-28')).toBe(true);
    // The resilience metrics keep the classifier's type.
    const errors = await otel.points('mcp.resilience.errors');
    expect(
      errors.map((p) => p.attributes['mcp.resilience.error.type']).every((t) => !String(t).startsWith('-')),
    ).toBe(true);
    expect(errors.every((p) => p.attributes['error.type'] === undefined)).toBe(true);
  });
});
