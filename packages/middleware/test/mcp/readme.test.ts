import { startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import {
  CLASSIFICATION_META_KEY,
  type McpClassificationMeta,
  observeFetch,
  withResilience,
} from '../../src/mcp/index.js';
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

    const client = new Client({ name: 'my-agent', version: '1.0.0' });
    await client.connect(transport());

    const mcp = withResilience(client, {
      server: 'weather', // breaker and budget key, `mcp.server` in telemetry
      fetch, // the same observeFetch(): Retry-After reaches the classifier
      reconnect: transport, // expired session, closed connection: reconnect, then retry when safe
      timeoutMs: 30_000, // deadline of a whole call, retries and waits included
      attemptTimeoutMs: 10_000, // time limit of one attempt
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
