import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Recovery } from '../call/CallOptions.js';
import type { ErrorType } from '../classify/Classification.js';
import { createResilience, type Resilience } from '../createResilience.js';
import { isResilienceError } from '../errors/ResilienceError.js';
import { type McpResilienceOptions, mcpDefaults, splitMcpOptions } from './McpResilienceOptions.js';
import { READ_ONLY_METHODS, UNWRAPPED_METHODS } from './methods.js';
import { mcpRules } from './mcpRules.js';
import { nonRetryableResult } from './nonRetryableResult.js';
import { ToolAnnotationCache } from './ToolAnnotationCache.js';
import { ToolResultError } from './ToolResultError.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };
type RequestFn = (request: AnyRequest, schema: unknown, options?: RequestOptions) => Promise<unknown>;

/** Where the final classification of a `tools/call` that returned a result is put, in the result's `_meta`. */
export const CLASSIFICATION_META_KEY = 'io.mcp-resilience/classification';

/**
 * Returns the client, of the same type, with every request (`callTool`, `listTools`, `readResource`, `ping`...,
 * anything that goes through `request`) run through the resilience pipeline: classified, retried when it can
 * succeed and is safe to repeat, guarded by the server's breaker and budget, recorded. A call site written for
 * a plain `Client` works unchanged.
 */
export function withResilience<C extends Client>(client: C, options: McpResilienceOptions = {}): C {
  const { mcp, core } = splitMcpOptions(options);
  const resilience: Resilience = mcp.resilience ?? createResilience({ ...core, rules: [] });
  const idempotency = mcp.idempotency ?? mcpDefaults.idempotency;
  const breakerScope = mcp.breakerScope ?? mcpDefaults.breakerScope;
  const nonRetryableAs = mcp.nonRetryableAs ?? mcpDefaults.nonRetryableAs;
  const rules = [...(core.rules ?? []), ...mcpRules(mcp.fetch)];
  const annotations = new ToolAnnotationCache();
  const originalRequest = client.request as unknown as RequestFn;
  const recover = reconnectRecovery(client, mcp.reconnect, annotations);
  watchToolListChanges(client, annotations);

  const serverName = () => mcp.server ?? client.getServerVersion()?.name ?? 'mcp';
  const isSafe = (method: string, tool: string | undefined) => {
    if (READ_ONLY_METHODS.has(method)) return true;
    if (method !== 'tools/call' || tool === undefined) return false;
    const override = mcp.toolIdempotency?.[tool];
    if (override !== undefined) return override;
    if (idempotency === 'annotations') return annotations.isSafeToRepeat(tool);
    return idempotency === 'assume-idempotent';
  };

  async function request(this: C, req: AnyRequest, schema: unknown, requestOptions?: RequestOptions) {
    const self = this ?? client;
    if (UNWRAPPED_METHODS.has(req.method)) return originalRequest.call(self, req, schema, requestOptions);
    const method = req.method;
    const tool = method === 'tools/call' && typeof req.params?.name === 'string' ? req.params.name : undefined;
    const server = serverName();
    const attributes: Record<string, string> = { 'mcp.server': server, 'mcp.method.name': method };
    if (tool !== undefined) attributes['gen_ai.tool.name'] = tool;
    if (tool !== undefined && idempotency === 'annotations' && annotations.needsRefresh(resilience.options.clock.now())) {
      await refreshAnnotations(self);
    }
    const perTool = breakerScope === 'tool' && tool !== undefined;
    const sessionId = client.transport?.sessionId;
    if (sessionId) attributes['mcp.session.id'] = sessionId;
    try {
      const result = await resilience.execute(
        async ({ signal, traceContext }) => {
          const params = withTraceContext(req.params, traceContext);
          const result = await originalRequest.call(self, params ? { ...req, params } : req, schema, {
            ...requestOptions,
            signal,
          });
          if (method === 'tools/call' && (result as CallToolResult)?.isError === true) {
            throw new ToolResultError(result as CallToolResult);
          }
          if (method === 'tools/list') annotations.update(result, req.params?.cursor === undefined);
          return result;
        },
        {
          endpoint: perTool ? `${server}/${tool}` : server,
          endpointAttributes: perTool ? { 'mcp.server': server, 'gen_ai.tool.name': tool } : { 'mcp.server': server },
          operation: method,
          idempotent: isSafe(method, tool),
          attributes,
          rules,
          recover,
          ...(requestOptions?.signal ? { signal: requestOptions.signal } : {}),
        },
      );
      return result;
    } catch (error) {
      if (!isResilienceError(error)) throw error;
      const c = error.classification;
      if (error.cause instanceof ToolResultError) {
        const result = error.cause.result;
        const final = nonRetryableAs === 'result' && c.class === 'non_retryable' ? nonRetryableResult(error, tool) : result;
        return { ...final, _meta: { ...final._meta, [CLASSIFICATION_META_KEY]: { ...c, attempts: error.attempts } } };
      }
      if (method === 'tools/call' && nonRetryableAs === 'result' && c.class === 'non_retryable') {
        return nonRetryableResult(error, tool);
      }
      throw error;
    }
  }

  /** Lists the tools once when the annotations are unknown or stale; on failure the MCP defaults apply. */
  async function refreshAnnotations(self: C) {
    const now = resilience.options.clock.now();
    annotations.refreshing(now);
    try {
      let cursor: string | undefined;
      let first = true;
      do {
        const page = await self.listTools(cursor === undefined ? undefined : { cursor });
        annotations.update(page, first);
        first = false;
        cursor = page.nextCursor;
      } while (cursor);
    } catch {
      // The MCP defaults (not idempotent) apply until the next try.
    }
  }

  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'request') return request;
      return Reflect.get(target, property, receiver);
    },
  });
}

/** Copies the attempt's trace context (`traceparent`) into `params._meta`, so the server's spans join the trace. */
function withTraceContext(params: Record<string, unknown> | undefined, traceContext: Readonly<Record<string, string>>) {
  if (Object.keys(traceContext).length === 0) return params;
  const meta = (params?._meta ?? {}) as Record<string, unknown>;
  return { ...params, _meta: { ...meta, ...traceContext } };
}

/** Re-initializes the session (close, connect a fresh transport on the same client), once at a time. */
function reconnectRecovery(
  client: Client,
  reconnect: McpResilienceOptions['reconnect'],
  annotations: ToolAnnotationCache,
): Partial<Record<ErrorType, Recovery>> | undefined {
  if (!reconnect) return undefined;
  let inFlight: Promise<void> | undefined;
  const recovery: Recovery = () => {
    inFlight ??= (async () => {
      try {
        await client.close().catch(() => {});
        await client.connect(await reconnect());
        annotations.stale = true;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };
  return { session_expired: recovery, connection_closed: recovery };
}

/** Marks the annotation cache stale when the server says its tools changed, keeping any handler already set. */
function watchToolListChanges(client: Client, annotations: ToolAnnotationCache): void {
  const method = 'notifications/tools/list_changed';
  const handlers = (client as unknown as { _notificationHandlers?: Map<string, (n: unknown) => unknown> })
    ._notificationHandlers;
  const previous = handlers?.get(method);
  handlers?.set(method, (notification) => {
    annotations.stale = true;
    return previous?.(notification);
  });
}
