import { startChaosHttpServer } from '@mcp-resilience/chaos';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { withResilience } from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/index.js';
import { fast, httpTransport, newClient } from './harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('sends each attempt’s W3C trace context to the server in params._meta, so its spans join the trace', async () => {
  const chaos = await startChaosHttpServer({
    plan: { faults: [{ kind: 'http_error', status: 503, tool: 'get_weather', times: 1 }] },
  });
  cleanups.push(() => chaos.close());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const client = newClient();
  await client.connect(httpTransport(chaos.url));
  cleanups.push(() => client.close());
  const mcp = withResilience(client, {
    ...fast,
    server: 'weather',
    recorder: createOtelRecorder({ tracerProvider }),
  });

  const parent = tracerProvider.getTracer('agent').startSpan('agent step');
  const result = await context.with(trace.setSpan(context.active(), parent), () =>
    mcp.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }),
  );
  parent.end();
  expect(result.isError).toBeFalsy();

  const attempts = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call get_weather');
  expect(attempts).toHaveLength(2); // the 503, then the retry
  const sent = chaos.log.filter((e) => e.tool === 'get_weather').map((e) => e.traceparent);
  expect(sent).toEqual(attempts.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`));
  // Every attempt is in the caller's trace.
  for (const span of attempts) expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
});
