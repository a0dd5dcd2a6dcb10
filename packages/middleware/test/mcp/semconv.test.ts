import { startChaosHttpServer } from '@mcp-resilience/chaos';
import { afterEach, expect, it } from 'vitest';
import { withResilience } from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/index.js';
import { createOtelHarness } from '../../src/otel/test-support/otelHarness.js';
import { chaosStdio, fast, httpTransport, newClient, tempDir } from './harness.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('SDK v1 on 2025-11-25 over HTTP: attempt spans carry the session, the version, each attempt’s request id, and the JSON-RPC code as error.type', async () => {
  const chaos = await startChaosHttpServer({
    plan: { faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search', times: 1 }] },
  });
  cleanups.push(() => chaos.close());
  const otel = createOtelHarness();
  cleanups.push(() => otel.shutdown());
  const client = newClient();
  const transport = httpTransport(chaos.url);
  await client.connect(transport);
  cleanups.push(() => client.close());
  const mcp = withResilience(client, {
    ...fast,
    server: 'chaos',
    recorder: createOtelRecorder({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
  });
  await expect(mcp.callTool({ name: 'search', arguments: { query: 'x' } })).rejects.toThrow();
  await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });

  const [search] = otel.spansNamed('tools/call search');
  const [weather] = otel.spansNamed('tools/call get_weather');
  for (const span of [search, weather]) {
    expect(span?.attributes['mcp.session.id']).toBe(transport.sessionId);
    expect(span?.attributes['mcp.protocol.version']).toBe('2025-11-25');
  }
  const requestIds = [search, weather].map((span) => span?.attributes['jsonrpc.request.id']);
  expect(requestIds).toEqual(
    chaos.log.filter((e) => e.method === 'tools/call').map((e) => String(e.requestId)),
  );
  expect(search?.attributes['error.type']).toBe('-32602');
  expect(search?.attributes['rpc.response.status_code']).toBe('-32602');
  expect(search?.attributes['mcp.resilience.error.type']).toBe('invalid_params');
  expect(weather?.attributes['error.type']).toBeUndefined();
  const errors = await otel.points('mcp.resilience.errors');
  expect(errors.map((p) => p.attributes['mcp.resilience.error.type'])).toEqual(['invalid_params']);
  expect(errors[0]?.attributes['error.type']).toBeUndefined(); // `error.type` keeps its OTel meaning: not on ours
  // The failed call's span: the OTel `error.type` of the attempt it ended with, and the classifier's type.
  const failedCall = otel
    .spansNamed('mcp.resilience.call')
    .find((span) => span.attributes['gen_ai.tool.name'] === 'search');
  expect(failedCall?.attributes).toMatchObject({
    'error.type': '-32602',
    'mcp.resilience.error.type': 'invalid_params',
    'mcp.resilience.error.class': 'non_retryable',
    'mcp.resilience.server': 'chaos',
  });
  const operation = await otel.points('mcp.client.operation.duration');
  const failed = operation.find((p) => p.attributes['gen_ai.tool.name'] === 'search');
  expect(failed?.attributes['error.type']).toBe('-32602');
  expect(failed?.attributes['mcp.protocol.version']).toBe('2025-11-25');
});

it('SDK v1 over stdio: the version comes from initialize, and there is no session', async () => {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const chaos = chaosStdio(dir, { faults: [] });
  const otel = createOtelHarness();
  cleanups.push(() => otel.shutdown());
  const client = newClient();
  const mcp = withResilience(client, {
    ...fast,
    server: 'chaos',
    recorder: createOtelRecorder({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
  });
  await mcp.connect(chaos.transport());
  cleanups.push(() => mcp.close());
  await mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  const [weather] = otel.spansNamed('tools/call get_weather');
  expect(weather?.attributes['mcp.protocol.version']).toBe('2025-11-25');
  expect(weather?.attributes['mcp.session.id']).toBeUndefined();
  expect(weather?.attributes['network.transport']).toBe('pipe');
  expect(weather?.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
});
