import { startChaosHttpServer } from '@mcp-resilience/chaos';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import { connectWithResilience, observeFetch } from '../../src/mcp/index.js';
import { createMemoryRecorder, type MemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { CHAOS_CLI, chaosStdio, fast, newClient, readLog, tempDir } from './harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const clientV2 = (protocol: '2026-07-28' | '2025-11-25') =>
  new ClientV2(
    { name: 'mcp-resilience-test', version: '1.0.0' },
    protocol === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );

/** The recorded calls: `[operation, outcome, attempts]`. */
const calls = (recorder: MemoryRecorder) =>
  recorder.events.flatMap((e) =>
    e.type === 'call_finished' ? [[e.operation, e.outcome, e.attempts] as const] : [],
  );

/** The call attribute `mcp.method.name` of every recorded call start. */
const methodNames = (recorder: MemoryRecorder) =>
  recorder.events.flatMap((e) =>
    e.type === 'call_started' ? [(e.attributes as Record<string, unknown>)['mcp.method.name']] : [],
  );

describe.each([
  ['2026-07-28', 'server/discover'],
  ['2025-11-25', 'initialize'],
] as const)('connectWithResilience, SDK v2 over Streamable HTTP, protocol %s', (protocol, connectMethod) => {
  it(`retries a 503 on the first ${connectMethod}, then connects: one connect call, two requests`, async () => {
    const chaos = await startChaosHttpServer({
      protocol,
      plan: { faults: [{ kind: 'http_error', status: 503, method: connectMethod, times: 1 }] },
    });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(
      clientV2(protocol),
      () => new HttpTransportV2(new URL(chaos.url), { fetch }),
      { ...fast, server: 'chaos', fetch, recorder, maxAttempts: 3 },
    );
    cleanups.push(() => mcp.close());
    expect(mcp.getNegotiatedProtocolVersion()).toBe(protocol);
    expect(chaos.log.filter((e) => e.method === connectMethod).map((e) => e.fault)).toEqual([
      'http_error',
      null,
    ]);
    // 2026-07-28 has no initialize; 2025-11-25 (legacy mode) sends no server/discover.
    const other = connectMethod === 'initialize' ? 'server/discover' : 'initialize';
    expect(chaos.log.filter((e) => e.method === other)).toEqual([]);
    expect(calls(recorder)).toEqual([[connectMethod, 'success', 2]]);
    expect(methodNames(recorder)).toEqual([connectMethod]);
    const classified = recorder.events.flatMap((e) =>
      e.type === 'failure_classified' ? [e.classification.type] : [],
    );
    expect(classified).toEqual(['unavailable']);

    const weather = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(weather.isError).toBeFalsy();
    // tools/list: the annotations, read before the first tool call.
    expect(calls(recorder).map(([operation]) => operation)).toEqual([
      connectMethod,
      'tools/list',
      'tools/call',
    ]);
  });
});

describe('connectWithResilience, SDK v2 pinned to 2026-07-28 over Streamable HTTP', () => {
  it('waits for the Retry-After of a 429 on server/discover, then connects', async () => {
    const chaos = await startChaosHttpServer({
      protocol: '2026-07-28',
      plan: { faults: [{ kind: 'rate_limit', retryAfter: 1, method: 'server/discover', times: 1 }] },
    });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(
      clientV2('2026-07-28'),
      () => new HttpTransportV2(new URL(chaos.url), { fetch }),
      { ...fast, server: 'chaos', fetch, recorder, maxAttempts: 3 },
    );
    cleanups.push(() => mcp.close());
    expect(chaos.log.filter((e) => e.method === 'server/discover').map((e) => e.fault)).toEqual([
      'rate_limit',
      null,
    ]);
    expect(calls(recorder)).toEqual([['server/discover', 'success', 2]]);
    const classified = recorder.events.flatMap((e) =>
      e.type === 'failure_classified' ? [[e.classification.type, e.classification.retryAfterMs]] : [],
    );
    expect(classified).toEqual([['rate_limited', 1000]]);
  });
});

describe('connectWithResilience, SDK v2 pinned to 2026-07-28, a 2025-11-25 server', () => {
  it('fails at once, the HTTP status seen by observeFetch() notwithstanding: the revision is missing', async () => {
    const chaos = await startChaosHttpServer({ protocol: '2025-11-25' });
    cleanups.push(() => chaos.close());
    const fetch = observeFetch();
    const recorder = createMemoryRecorder();
    const error = await connectWithResilience(
      clientV2('2026-07-28'),
      () => new HttpTransportV2(new URL(chaos.url), { fetch }),
      { ...fast, server: 'chaos', fetch, recorder, maxAttempts: 3 },
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isResilienceError(error) && [error.attempts, error.classification.class]).toEqual([
      1,
      'non_retryable',
    ]);
    expect(calls(recorder)).toEqual([['server/discover', 'failure', 1]]);
  });
});

describe("connectWithResilience, SDK v2 in 'auto' mode, a 2025-11-25 server", () => {
  it('probes, falls back to initialize within the same attempt: one call, named after the probe', async () => {
    const chaos = await startChaosHttpServer({ protocol: '2025-11-25' });
    cleanups.push(() => chaos.close());
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(
      new ClientV2(
        { name: 'mcp-resilience-test', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      ),
      () => new HttpTransportV2(new URL(chaos.url)),
      { ...fast, server: 'chaos', recorder },
    );
    cleanups.push(() => mcp.close());
    expect(mcp.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(chaos.log.filter((e) => e.method === 'initialize')).toHaveLength(1);
    expect(calls(recorder)).toEqual([['server/discover', 'success', 1]]);
  });
});

describe('connectWithResilience over stdio', () => {
  it('SDK v1: one connect call, one initialize, then the client works', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const chaos = chaosStdio(dir, { faults: [] });
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(newClient(), chaos.transport, {
      ...fast,
      server: 'chaos',
      recorder,
    });
    await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    await mcp.close();
    expect(readLog(chaos.logFile).filter((e) => e.method === 'initialize')).toHaveLength(1);
    expect(calls(recorder)).toEqual([
      ['initialize', 'success', 1],
      ['tools/list', 'success', 1],
      ['tools/call', 'success', 1],
    ]);
  });

  it('SDK v2 pinned to 2026-07-28: one connect call labelled server/discover, then the client works', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const logFile = `${dir}/chaos.log.jsonl`;
    const recorder = createMemoryRecorder();
    const mcp = await connectWithResilience(
      clientV2('2026-07-28'),
      () =>
        new StdioTransportV2({
          command: process.execPath,
          args: [CHAOS_CLI, 'serve', '--transport', 'stdio', '--protocol', '2026-07-28', '--log', logFile],
          stderr: 'pipe',
        }),
      { ...fast, server: 'chaos', recorder },
    );
    expect(mcp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    await mcp.close();
    expect(readLog(logFile).filter((e) => e.method === 'initialize')).toEqual([]);
    expect(calls(recorder)).toEqual([
      ['server/discover', 'success', 1],
      ['tools/list', 'success', 1],
      ['tools/call', 'success', 1],
    ]);
  });
});
