import type { Classification } from '../classify/Classification.js';
import type { ClassificationRule, FunctionRule } from '../classify/ClassificationRule.js';
import { capMessage } from '../classify/readClassification.js';
import { classifyHttpStatus } from '../classify/rules/httpStatus.js';
import { createResilience } from '../createResilience.js';
import { ATTR_MCP_METHOD_NAME, ATTR_MCP_RESILIENCE_SERVER } from '../otel/semconv.js';
import type { McpClientLike } from './McpClientLike.js';
import { type McpResilienceOptions, splitMcpOptions } from './McpResilienceOptions.js';
import { mcpRules } from './mcpRules.js';
import type { HttpFailure } from './observeFetch.js';
import { sdkErrorCode, sdkHttpStatus } from './v2/sdkV2Errors.js';
import { withResilience } from './withResilience.js';

/** Makes the transport of one connection attempt (a transport can be started once: a retry needs a new one). */
export type TransportFactory = () => object | Promise<object>;

/**
 * Connects `client` through the resilience layer, then returns it wrapped by {@link withResilience}. The
 * connection (`initialize` on 2025-11-25, `server/discover` on 2026-07-28: see {@link connectMethodOf} for the
 * call's operation name) is one call like any other: a 503 or a
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

  const server = mcp.server ?? 'mcp';
  const method = connectMethodOf(client);
  const failures = new WeakMap<object, readonly HttpFailure[]>();
  await resilience.execute(
    async ({ signal }) => {
      const mark = mcp.fetch?.mark();
      await connectOnce(client, resilient, transport, signal, (error) => {
        if (typeof error === 'object' && error !== null && mark !== undefined) {
          failures.set(error, mcp.fetch?.failuresSince(mark) ?? []);
        }
      });
    },
    {
      endpoint: server,
      endpointAttributes: { [ATTR_MCP_RESILIENCE_SERVER]: server },
      operation: method,
      // Nothing has run on the server before the connection exists.
      idempotent: true,
      attributes: { [ATTR_MCP_RESILIENCE_SERVER]: server, [ATTR_MCP_METHOD_NAME]: method },
      rules: connectRules(rules, (error) => failures.get(error as object)),
    },
  );
  return resilient;
}

/** One connection attempt on a fresh transport; a failed or abandoned one leaves the client closed. */
async function connectOnce(
  client: McpClientLike,
  resilient: McpClientLike,
  transport: TransportFactory,
  signal: AbortSignal,
  /** Called with the attempt's error before the client is closed. */
  failed: (error: unknown) => void,
): Promise<void> {
  // An attempt that ends early (time limit, caller) must not connect later behind the next one's back.
  const abandon = () => void client.close().catch(() => {});
  signal.addEventListener('abort', abandon, { once: true });
  try {
    await resilient.connect(await transport(), { signal });
  } catch (error) {
    failed(error);
    await client.close().catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener('abort', abandon);
  }
}

/** The connect call's rules: the caller's, the probe's HTTP status, the MCP rules with the attempt's HTTP failures. */
function connectRules(
  rules: readonly ClassificationRule[] | undefined,
  failuresOf: (error: unknown) => readonly HttpFailure[] | undefined,
): ClassificationRule[] {
  return [
    ...(rules ?? []),
    negotiationHttpFailure(failuresOf),
    ...mcpRules({
      httpFailure: (error, status) =>
        failuresOf(error)
          ?.filter((f) => f.status === status)
          .at(-1),
    }),
  ];
}

/**
 * The request a connection starts with, which names the connect call (`operation`, `mcp.method.name`):
 * `server/discover` for an SDK v2 client that negotiates the protocol revision (`versionNegotiation` mode
 * `{ pin }` or `'auto'`; `'auto'` falls back to `initialize`, within the same attempt, on a 2025-era server),
 * `initialize` otherwise (SDK v1, SDK v2 in its default `'legacy'` mode). Either way the SDK sends it on the
 * transport itself, not through `request()`: it is never a call of its own inside the connect call.
 */
export function connectMethodOf(client: McpClientLike): 'initialize' | 'server/discover' {
  // SDK v2 (2.4.0) keeps the option, from its constructor or `setVersionNegotiation()`, in `_versionNegotiation`.
  const negotiation = (client as { _versionNegotiation?: { mode?: unknown } })._versionNegotiation;
  const mode = negotiation?.mode;
  return mode === undefined || mode === 'legacy' ? 'initialize' : 'server/discover';
}

/**
 * SDK v2 reports a `server/discover` probe answered with a 4xx other than 401/403 (a 429 from a proxy, with its
 * JSON-RPC error body) as a server that does not offer the pinned revision: `ERA_NEGOTIATION_FAILED` without a
 * status, which alone is final. When the `observeFetch()` saw a retryable HTTP failure (429, 408...) during the
 * attempt, that status decides, with its `Retry-After`.
 */
const negotiationHttpFailure =
  (failuresOf: (error: unknown) => readonly HttpFailure[] | undefined): FunctionRule =>
  (error) => {
    if (sdkErrorCode(error) !== 'ERA_NEGOTIATION_FAILED' || sdkHttpStatus(error) !== undefined) {
      return undefined;
    }
    const seen = failuresOf(error)?.at(-1);
    const verdict = seen === undefined ? undefined : classifyHttpStatus(seen.status, []);
    if (seen === undefined || verdict === undefined || verdict.class === 'non_retryable') return undefined;
    const classification: Classification = {
      ...verdict,
      source: 'mcp.connect.probe_http_status',
      message: capMessage((error as Error).message),
    };
    return seen.retryAfterMs === undefined
      ? classification
      : { ...classification, retryAfterMs: seen.retryAfterMs };
  };
