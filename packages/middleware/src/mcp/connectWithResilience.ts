import { createResilience } from '../createResilience.js';
import type { McpClientLike } from './McpClientLike.js';
import { type McpResilienceOptions, splitMcpOptions } from './McpResilienceOptions.js';
import { mcpRules } from './mcpRules.js';
import type { HttpFailure } from './observeFetch.js';
import { withResilience } from './withResilience.js';

/** Makes the transport of one connection attempt (a transport can be started once: a retry needs a new one). */
export type TransportFactory = () => object | Promise<object>;

/**
 * Connects `client` through the resilience layer, then returns it wrapped by {@link withResilience}. The
 * connection (`initialize` on 2025-11-25, `server/discover` on 2026-07-28) is one call like any other: a 503 or a
 * 429 from a proxy, a refused connection, a time limit are classified and retried with backoff (`Retry-After`
 * respected, with `fetch`), under the server's breaker and budget, within `timeoutMs`; a non-retryable failure (401,
 * an unsupported protocol version) throws a `ResilienceError` at once. Each attempt connects a fresh transport from
 * `transport`, which also becomes the `reconnect` factory unless one is given.
 *
 * @example
 * const fetch = observeFetch();
 * const mcp = await connectWithResilience(
 *   new Client({ name: 'my-agent', version: '1.0.0' }),
 *   () => new StreamableHTTPClientTransport(new URL(url), { fetch }),
 *   { server: 'weather', fetch },
 * );
 */
export async function connectWithResilience<C extends McpClientLike>(
  client: C,
  transport: TransportFactory,
  options: McpResilienceOptions = {},
): Promise<C> {
  if (typeof transport !== 'function') {
    throw new TypeError(
      'connectWithResilience: transport must be a function returning a new transport (each attempt needs its own)',
    );
  }
  const { mcp, core } = splitMcpOptions(options);
  const { rules, ...coreOptions } = core;
  const resilience = mcp.resilience ?? createResilience({ ...coreOptions, rules: [] });
  const resilient = withResilience(client, {
    ...mcp,
    reconnect: mcp.reconnect ?? transport,
    resilience,
    ...(rules ? { rules } : {}),
  });

  const failures = new WeakMap<object, readonly HttpFailure[]>();
  const server = mcp.server ?? 'mcp';
  await resilience.execute(
    async ({ signal }) => {
      const mark = mcp.fetch?.mark();
      // An attempt that ends early (time limit, caller) must not connect later behind the next one's back.
      const abandon = () => void client.close().catch(() => {});
      signal.addEventListener('abort', abandon, { once: true });
      try {
        await resilient.connect(await transport(), { signal });
      } catch (error) {
        if (typeof error === 'object' && error !== null && mark !== undefined) {
          failures.set(error, mcp.fetch?.failuresSince(mark) ?? []);
        }
        await client.close().catch(() => {});
        throw error;
      } finally {
        signal.removeEventListener('abort', abandon);
      }
    },
    {
      endpoint: server,
      endpointAttributes: { 'mcp.server': server },
      operation: 'initialize',
      // Nothing has run on the server before the connection exists.
      idempotent: true,
      attributes: { 'mcp.server': server, 'mcp.method.name': 'initialize' },
      rules: [
        ...(rules ?? []),
        ...mcpRules({
          httpFailure: (error, status) =>
            failures
              .get(error as object)
              ?.filter((f) => f.status === status)
              .at(-1),
        }),
      ],
    },
  );
  return resilient;
}
