import { startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import {
  CLASSIFICATION_META_KEY,
  connectWithResilience,
  type McpClassificationMeta,
  observeFetch,
} from '../../src/mcp/index.js';
import { createOtelRecorder } from '../../src/otel/index.js';
import { createOtelHarness } from '../../src/otel/test-support/otelHarness.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';

/** The MCP example of README.md, against the chaos server (imports made relative). */
it('runs the README example', async () => {
  const server = await startChaosHttpServer({
    plan: { faults: [{ kind: 'invalid_params', mode: 'error', tool: 'search' }] },
  });
  const seen: unknown[] = [];
  const log = (...values: unknown[]) => seen.push(values);
  try {
    // --- the example ---
    const url = new URL(server.url);
    const fetch = observeFetch(); // sees the status and Retry-After that the SDK's errors drop
    const transport = () => new StreamableHTTPClientTransport(url, { fetch });

    // connect() goes through the pipeline too (a 503 or 429 there is retried); each attempt, and each later
    // reconnection (expired session, closed connection), uses a fresh transport from `transport`.
    const mcp = await connectWithResilience(new Client({ name: 'my-agent', version: '1.0.0' }), transport, {
      mcp: {
        server: 'weather', // breaker and budget key, `mcp.resilience.server` in telemetry
        fetch, // the same observeFetch(): Retry-After reaches the classifier
      },
      deadline: {
        callMs: 30_000, // deadline of a whole call, retries and waits included
        attemptMs: 10_000, // time limit of one attempt
      },
      recorder: createMemoryRecorder(), // or createOtelRecorder() from '@mcp-resilience/middleware/otel'
    });

    // A tool error comes back as a result (the model should read it), with the final classification in _meta.
    const result = await mcp.callTool({ name: 'get_weather', arguments: { city: 'Atlantis' } });
    if (result.isError) {
      const meta = result._meta?.[CLASSIFICATION_META_KEY] as McpClassificationMeta;
      log(meta.class, meta.type, meta.execution, meta.attempts); // non_retryable invalid_params executed 1
    }

    // A protocol or transport failure that could not be (or was not worth being) retried throws.
    try {
      await mcp.callTool({ name: 'search', arguments: { query: 'mcp' } });
    } catch (error) {
      if (!isResilienceError(error)) throw error;
      const { classification, attempts, reason } = error; // retrying already happened: do not retry around it
      log(classification.class, classification.type, classification.execution, attempts, reason);
      // non_retryable invalid_params not_sent 1 non_retryable
    }

    await mcp.close();
    // --- end of the example ---
  } finally {
    await server.close();
  }
  expect(seen).toEqual([
    ['non_retryable', 'invalid_params', 'executed', 1],
    ['non_retryable', 'invalid_params', 'not_sent', 1, 'non_retryable'],
  ]);
});

/**
 * The root README's "Use it" example, against the chaos server as `npm run demo` runs it, with a 503 during
 * `initialize` and a 429 on the call: both retried, the result printed, the client closed and telemetry shut
 * down (`setupTelemetry()` is replaced by the same recorder on in-memory providers).
 */
it('runs the root README example: connect through the resilience layer, call, close, shut telemetry down', async () => {
  const server = await startChaosHttpServer({
    plan: {
      faults: [
        { kind: 'http_error', status: 503, method: 'initialize', times: 1 },
        { kind: 'rate_limit', retryAfter: 1, tool: 'search', times: 1 },
      ],
    },
  });
  const otel = createOtelHarness();
  const printed: unknown[] = [];
  const exported: ReturnType<typeof otel.spans> = [];
  try {
    const process = { env: { MCP_URL: server.url } as Record<string, string | undefined> };
    const console = { log: (value: unknown) => printed.push(value) };
    const setupTelemetry = (_: { serviceName: string }) => ({
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
      shutdown: async () => {
        exported.push(...otel.spans()); // the in-memory exporter forgets them on shutdown
        await otel.shutdown();
      },
    });
    // --- the example ---
    const url = new URL(process.env.MCP_URL ?? 'http://127.0.0.1:3001/mcp');
    const telemetry = setupTelemetry({ serviceName: 'research-agent' }); // OTLP to OTEL_EXPORTER_OTLP_ENDPOINT
    const fetch = observeFetch(); // lets the classifier see Retry-After
    const search = await connectWithResilience(
      new Client({ name: 'research-agent', version: '1.0.0' }),
      () => new StreamableHTTPClientTransport(url, { fetch }), // a fresh transport per (re)connection
      {
        server: 'search',
        fetch,
        nonRetryableAs: 'result', // the model reads what was wrong instead of an exception
        recorder: telemetry.recorder,
      },
    );
    try {
      const result = await search.callTool({ name: 'search', arguments: { query: 'circuit breakers' } });
      console.log(result.content);
    } finally {
      await search.close();
      await telemetry.shutdown(); // flushes the last spans and metrics: the process exits
    }
    // --- end of the example ---
  } finally {
    await server.close();
  }
  expect(JSON.stringify(printed)).toMatch(/circuit breakers/);
  expect(server.log.map((e) => [e.method, e.fault])).toEqual([
    ['initialize', 'http_error'],
    ['initialize', null],
    ['tools/list', null], // the annotations, before the first tool call
    ['tools/call', 'rate_limit'],
    ['tools/call', null],
  ]);
  const named = (name: string) => exported.filter((span) => span.name === name);
  expect(named('initialize').map((span) => span.attributes['mcp.resilience.attempt'])).toEqual([1, 2]);
  expect(named('tools/call search').map((span) => span.attributes['mcp.resilience.attempt'])).toEqual([1, 2]);
});
