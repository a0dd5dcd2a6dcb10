import type { AttemptContext, CallOptions, Recovery } from '../call/CallOptions.js';
import type { Classification } from '../classify/Classification.js';
import { createResilience, type Resilience } from '../createResilience.js';
import { isResilienceError, type ResilienceError } from '../errors/ResilienceError.js';
import { callVariant } from '../experiment/callVariant.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_FALLBACK_FROM,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  ERROR_TYPE_VALUE_TOOL_ERROR,
} from '../otel/semconv.js';
import { annotateAttempt } from '../record/attemptAnnotations.js';
import { agentLoop } from './agentLoop.js';
import { idempotencyPolicy } from './idempotency.js';
import { FALLBACK_FROM, FALLBACK_VARIANT, INTERNALS, type ResilientInternals } from './internals.js';
import type { McpClientLike, RequestOptionsLike, TransportLike } from './McpClientLike.js';
import { type McpResilienceOptions, mcpDefaults, splitMcpOptions } from './McpResilienceOptions.js';
import { mcpRules } from './mcpRules.js';
import { UNWRAPPED_METHODS } from './methods.js';
import { nonRetryableResult } from './nonRetryableResult.js';
import type { HttpFailure } from './observeFetch.js';
import { ReconnectError } from './ReconnectError.js';
import {
  hasSessions,
  networkTransport,
  protocolVersionOf,
  readRequestArgs,
  requestArgs,
  sessionIdOf,
} from './sdkLine.js';
import { sendAttempt } from './sendAttempt.js';
import { ToolAnnotationCache } from './ToolAnnotationCache.js';
import { type CallToolResult, ToolResultError } from './ToolResultError.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };
type RequestFn = (...args: unknown[]) => Promise<unknown>;
type Transport = TransportLike;

/**
 * The key under which a `tools/call` result that ended as a failure (an `isError` result, or the `'result'` form of
 * a non-retryable error) carries the final classification in its `_meta`: a {@link McpClassificationMeta}.
 */
export const CLASSIFICATION_META_KEY = 'io.mcp-resilience/classification';

/** `result._meta[CLASSIFICATION_META_KEY]`: the last failure's classification, the attempts made and why it stopped. */
export type McpClassificationMeta = Classification & {
  readonly attempts: number;
  readonly reason: ResilienceError['reason'];
};

/** What the MCP rules learn about a failed attempt, keyed by the error it threw. */
interface AttemptFacts {
  readonly failures: readonly HttpFailure[];
  readonly sessionId: string | undefined;
  /** Whether the attempt ran on a protocol revision without sessions (2026-07-28 and later). */
  readonly sessionless: boolean;
}

/**
 * Returns the client, of the same type, with every request (`callTool`, `listTools`, `readResource`, `ping`...,
 * anything that goes through `request`) run through the resilience pipeline: classified, retried when it can
 * succeed and is safe to repeat, guarded by the server's breaker and budget, recorded. A call site written for
 * a plain `Client` works unchanged. `connect()` and `close()` keep working on the returned client.
 *
 * Works on a `Client` of either SDK line: `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client` 2.x
 * (both optional peer dependencies), with the same options and telemetry.
 */
export function withResilience<C extends McpClientLike>(client: C, options: McpResilienceOptions = {}): C {
  const { mcp, core } = splitMcpOptions(options);
  const resilience: Resilience = mcp.resilience ?? createResilience({ ...core, rules: [] });
  const clock = resilience.options.clock;
  const breakerScope = mcp.breakerScope ?? mcpDefaults.breakerScope;
  const nonRetryableAs = mcp.nonRetryableAs ?? mcpDefaults.nonRetryableAs;
  const annotations = new ToolAnnotationCache();
  const policy = idempotencyPolicy(
    mcp.idempotency ?? mcpDefaults.idempotency,
    mcp.toolIdempotency,
    annotations,
  );
  const originalRequest = client.request as unknown as RequestFn;
  const facts = new WeakMap<object, AttemptFacts>();
  const rules = [
    ...(core.rules ?? []),
    ...mcpRules({
      httpFailure: (error, status) =>
        facts
          .get(error as object)
          ?.failures.filter((f) => f.status === status)
          .at(-1),
      hadSession: (error) => facts.get(error as object)?.sessionId !== undefined,
      sessionless: (error) => facts.get(error as object)?.sessionless === true,
    }),
  ];
  let closedByCaller = false;
  const watched = new WeakSet<Transport>();
  const watchTools = (transport: Transport | undefined) => {
    if (!transport || watched.has(transport)) return;
    watched.add(transport);
    watchToolListChanged(transport, annotations, () => loop.toolsChanged());
  };
  watchTools(transportOf(client));
  const reconnect = mcp.reconnect
    ? reconnector(client, mcp.reconnect, (transport) => {
        watchTools(transport);
        annotations.markStale();
      })
    : undefined;

  const serverName = () => mcp.server ?? client.getServerVersion()?.name ?? 'mcp';
  // The model's repeats (negative cache), results for other terminal outcomes, fallback servers. A fallback
  // shares the pipeline and the per-tool choices (breakerScope, idempotency, rules); `reconnect` and `fetch` are
  // this server's transport's, not the fallback's: a fallback that needs them is passed already wrapped.
  const loop = agentLoop(mcp, resilience, (target, server) =>
    withResilience(target, {
      resilience,
      server,
      breakerScope,
      idempotency: mcp.idempotency ?? mcpDefaults.idempotency,
      ...(mcp.toolIdempotency ? { toolIdempotency: mcp.toolIdempotency } : {}),
      ...(core.rules ? { rules: core.rules } : {}),
      negativeCacheTtlMs: 0,
    }),
  );
  // v1 keeps the version `initialize` answered only on its HTTP transport: remembered here for stdio.
  let initializedVersion: string | undefined;
  const protocolVersion = () => protocolVersionOf(client, transportOf(client), initializedVersion);

  async function request(this: unknown, req: AnyRequest, second?: unknown, third?: unknown) {
    const self = this ?? proxy;
    const args = readRequestArgs(second, third);
    const requestOptions = args.options;
    if (UNWRAPPED_METHODS.has(req.method)) {
      const result = await originalRequest.call(self, req, ...requestArgs(args, requestOptions ?? {}));
      const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (req.method === 'initialize' && typeof version === 'string') initializedVersion = version;
      return result;
    }
    const { method } = req;
    const tool =
      method === 'tools/call' && typeof req.params?.name === 'string' ? req.params.name : undefined;
    const server = serverName();
    const attributes = callAttributes(server, req, tool, transportOf(client), protocolVersion());
    const routedFrom = requestOptions as
      | { [FALLBACK_FROM]?: unknown; [FALLBACK_VARIANT]?: unknown }
      | undefined;
    const from = routedFrom?.[FALLBACK_FROM];
    if (typeof from === 'string') attributes[ATTR_MCP_RESILIENCE_FALLBACK_FROM] = from;
    const perTool = breakerScope === 'tool' && tool !== undefined;
    const endpoint = perTool ? `${server}/${tool}` : server;
    const endpointAttributes: Record<string, string> = perTool
      ? { [ATTR_MCP_RESILIENCE_SERVER]: server, [ATTR_GEN_AI_TOOL_NAME]: tool }
      : { [ATTR_MCP_RESILIENCE_SERVER]: server };
    // The transport the last attempt ran on: a recovery reconnects only when no other call did it meanwhile.
    let attemptTransport: Transport | undefined;
    const recovery: Recovery | undefined =
      reconnect && !closedByCaller
        ? async () => {
            // Closed by its caller meanwhile: not reconnected behind its back; the call ends as `Not connected`.
            if (closedByCaller) throw new Error('Not connected');
            // A failed reconnection is not final here: the next attempt connects again, and its failure (refused,
            // 401, ...) is classified and retried with backoff like any other.
            await reconnect(attemptTransport).catch(() => {});
          }
        : undefined;
    let call: CallOptions = {
      endpoint,
      endpointAttributes,
      operation: method,
      idempotent: policy.isSafe(method, tool),
      attributes,
      rules,
      ...(recovery ? { recover: { session_expired: recovery, connection_closed: recovery } } : {}),
      ...(requestOptions?.signal ? { signal: requestOptions.signal } : {}),
      ...limitOf(requestOptions),
    };
    // In an experiment the call's variant is drawn here, before the negative cache, which it keys (one variant's
    // verdict never answers the other's repeats); `execute` runs the call on it (it is in `attributes`). A
    // fallback call keeps its primary's variant.
    const variant = callVariant(resilience, call, routedFrom?.[FALLBACK_VARIANT]);
    if (variant !== undefined) attributes[ATTR_MCP_RESILIENCE_VARIANT] = variant;
    const repeat =
      tool === undefined ? undefined : loop.repeat(server, tool, req.params?.arguments, attributes);
    if (repeat?.kind === 'result') return repeat.result;
    if (repeat?.kind === 'error') throw repeat.error;
    // After the negative cache: a repeat answered from it sends nothing, not even `tools/list`.
    if (policy.needsAnnotations(method, tool) && annotations.needsRefresh(clock.now())) {
      await refreshAnnotations(requestOptions?.signal);
      call = { ...call, idempotent: policy.isSafe(method, tool) };
    }
    const started = clock.now();
    const attempt = async ({ signal, traceContext }: AttemptContext) => {
      if (reconnect && !closedByCaller && client.transport === undefined) {
        try {
          await reconnect(undefined);
        } catch (error) {
          throw new ReconnectError(error);
        }
      }
      const transport = transportOf(client);
      attemptTransport = transport;
      const mark = mcp.fetch?.mark();
      const params = withTraceContext(req.params, traceContext);
      const version = protocolVersion();
      let result: unknown;
      try {
        result = await sendAttempt({
          client,
          self,
          originalRequest,
          request: params === req.params ? req : { ...req, params },
          args,
          signal,
          traceContext,
          fetch: mcp.fetch,
          protocolVersion: version,
        });
      } catch (error) {
        if (typeof error === 'object' && error !== null) {
          facts.set(error, {
            failures: mark === undefined ? [] : (mcp.fetch?.failuresSince(mark) ?? []),
            sessionId: sessionIdOf(transport, version),
            sessionless: !hasSessions(version),
          });
        }
        throw error;
      }
      // An `input_required` result (2026-07-28 multi-round-trip, `allowInputRequired`) is a result, not a failure.
      if (method === 'tools/call' && (result as CallToolResult | undefined)?.isError === true) {
        annotateAttempt(traceContext, { [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR });
        throw new ToolResultError(result as CallToolResult);
      }
      if (method === 'tools/list') annotations.update(result, req.params?.cursor === undefined);
      return result;
    };
    try {
      const value = await resilience.execute(attempt, call);
      if (tool !== undefined) loop.succeeded(annotations.get(tool)?.readOnlyHint === true);
      return value;
    } catch (thrown) {
      if (!isResilienceError(thrown)) throw thrown;
      let error: ResilienceError = thrown;
      let fellBack = false;
      if (tool !== undefined) {
        const routed = await loop.fallBack({
          request: req,
          schema: args.schema,
          options: requestOptions,
          tool,
          primary: server,
          attributes,
          cause: error,
          safeToRepeat: policy.isSafe(method, tool),
        });
        if (routed.kind === 'value') {
          // The tool ran on the fallback: a success of a tool that is not read-only may have changed the state.
          if ((routed.value as CallToolResult | undefined)?.isError !== true) loop.succeeded(routed.readOnly);
          return routed.value;
        }
        if (routed.kind === 'failed' && isResilienceError(routed.error)) {
          error = routed.error;
          fellBack = true;
        }
      }
      // A fallback's failure is not this server's verdict: the model's repeat comes here again.
      const remember = <T>(settled: T): T =>
        tool === undefined || fellBack
          ? settled
          : loop.remember(
              server,
              tool,
              req.params?.arguments,
              error,
              settled,
              clock.now() - started,
              variant,
            );
      const meta: McpClassificationMeta = {
        ...error.classification,
        attempts: error.attempts,
        reason: error.reason,
      };
      const asResult =
        nonRetryableAs === 'result' &&
        error.classification.class === 'non_retryable' &&
        error.classification.type !== 'cancelled' &&
        error.reason !== 'aborted';
      if (error.cause instanceof ToolResultError) {
        const original = error.cause.result;
        const result = asResult ? nonRetryableResult(meta, meta.attempts, tool, original) : original;
        return remember({ ...result, _meta: { ...result._meta, [CLASSIFICATION_META_KEY]: meta } });
      }
      if (method === 'tools/call' && asResult) {
        return remember({
          ...nonRetryableResult(meta, meta.attempts, tool),
          _meta: { [CLASSIFICATION_META_KEY]: meta },
        });
      }
      const outcome = method === 'tools/call' ? loop.asResult(error, tool) : undefined;
      if (outcome) return { ...outcome, _meta: { [CLASSIFICATION_META_KEY]: meta } };
      throw remember(error);
    }
  }

  /** Lists the tools (all pages) when their annotations are unknown or stale, once at a time. */
  let refreshing: Promise<void> | undefined;
  function refreshAnnotations(signal: AbortSignal | undefined): Promise<void> {
    refreshing ??= (async () => {
      try {
        let cursor: string | undefined;
        do {
          const page: { nextCursor?: string | undefined } = await proxy.listTools(
            cursor === undefined ? undefined : { cursor },
            signal ? { signal } : {},
          );
          cursor = page.nextCursor;
        } while (cursor);
      } catch (error) {
        // The last known annotations (or MCP's defaults: not idempotent) apply until the next try.
        const refused = isResilienceError(error) && error.classification.class === 'non_retryable';
        annotations.refreshFailed(clock.now(), refused);
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  }

  const internals: ResilientInternals = {
    tools: annotations,
    refreshTools: refreshAnnotations,
    server: serverName,
  };
  const proxy: C = new Proxy(client, {
    get(target, property, receiver) {
      switch (property) {
        case 'request':
          return request;
        case INTERNALS:
          return internals;
        case 'connect':
          return (transport: Transport, connectOptions?: unknown) => {
            closedByCaller = false;
            annotations.markStale();
            watchTools(transport);
            return target.connect.call(receiver, transport, connectOptions);
          };
        case 'close':
          return () => {
            closedByCaller = true;
            return target.close.call(receiver);
          };
        default:
          return Reflect.get(target, property, receiver);
      }
    },
  });
  return proxy;
}

/** The client's transport, typed as what `withResilience` uses of it. */
const transportOf = (client: McpClientLike) => client.transport as Transport | undefined;

/**
 * The call's telemetry attributes: server, method, tool or prompt (low-cardinality: metrics use them), plus
 * `network.transport` and `mcp.session.id`, which the OTel recorder puts on spans only.
 */
function callAttributes(
  server: string,
  req: AnyRequest,
  tool: string | undefined,
  transport: Transport | undefined,
  version: string | undefined,
): Record<string, string> {
  const attributes: Record<string, string> = {
    [ATTR_MCP_RESILIENCE_SERVER]: server,
    [ATTR_MCP_METHOD_NAME]: req.method,
  };
  if (tool !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = tool;
  if (req.method === 'prompts/get' && typeof req.params?.name === 'string') {
    attributes[ATTR_GEN_AI_PROMPT_NAME] = req.params.name;
  }
  const network = networkTransport(transport);
  if (network) attributes[ATTR_NETWORK_TRANSPORT] = network;
  const session = sessionIdOf(transport, version);
  if (session) attributes[ATTR_MCP_SESSION_ID] = session;
  return attributes;
}

/** Copies the attempt's trace context (`traceparent`) into `params._meta`, so the server's spans join the trace. */
function withTraceContext(
  params: Record<string, unknown> | undefined,
  traceContext: Readonly<Record<string, string>>,
) {
  if (Object.keys(traceContext).length === 0) return params;
  const meta = (params?._meta ?? {}) as Record<string, unknown>;
  return { ...params, _meta: { ...meta, ...traceContext } };
}

/**
 * Re-initializes the connection: close, then connect a fresh transport from the factory on the same client.
 * Concurrent recoveries share one reconnection, and a call whose attempt ran on a transport that another call
 * already replaced just retries on the new one. `failedOn` undefined: connect only if not connected.
 */
function reconnector(
  client: McpClientLike,
  factory: NonNullable<McpResilienceOptions['reconnect']>,
  beforeConnect: (transport: Transport) => void,
): (failedOn: Transport | undefined) => Promise<void> {
  let inFlight: Promise<void> | undefined;
  return (failedOn) => {
    if (inFlight) return inFlight;
    if (client.transport !== undefined && client.transport !== failedOn) return Promise.resolve();
    inFlight = (async () => {
      try {
        if (client.transport !== undefined) await client.close().catch(() => {});
        const transport = (await factory()) as Transport;
        beforeConnect(transport);
        await client.connect(transport);
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };
}

/**
 * Marks the annotations stale when the server says its tools changed. It wraps the transport's `onmessage`
 * (before `connect`, the SDK chains it; after, it wraps the SDK's), so that it survives the handlers the SDK
 * or the caller set with `setNotificationHandler`.
 */
function watchToolListChanged(
  transport: Transport,
  annotations: ToolAnnotationCache,
  onToolsChanged?: () => void,
): void {
  const previous = transport.onmessage;
  transport.onmessage = ((message, extra) => {
    if ((message as { method?: unknown }).method === 'notifications/tools/list_changed') {
      annotations.markStale();
      onToolsChanged?.();
    }
    previous?.call(transport, message, extra);
  }) as Transport['onmessage'];
}

/**
 * The call's limit from the SDK's request options: its `timeout` (unless `resetTimeoutOnProgress` makes it an idle
 * timeout) and `maxTotalTimeout`, whichever ends first. None given: the call has no limit of its own.
 */
export function limitOf(options: RequestOptionsLike | undefined): { timeoutMs?: number } {
  if (!options) return {};
  const limits = [
    options.resetTimeoutOnProgress === true ? undefined : options.timeout,
    options.maxTotalTimeout,
  ];
  const given = limits.filter((ms): ms is number => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0);
  return given.length === 0 ? {} : { timeoutMs: Math.min(...given) };
}
