import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { INTERNALS, type ResilientInternals } from './internals.js';
import { McpCall } from './McpCall.js';
import type { McpClientLike, TransportLike } from './McpClientLike.js';
import { McpEdge } from './McpEdge.js';
import type { McpResilienceOptions } from './McpResilienceOptions.js';
import { UNWRAPPED_METHODS } from './methods.js';
import { readRequestArgs } from './sdkLine.js';

export { CLASSIFICATION_META_KEY, type McpClassificationMeta } from './classificationMeta.js';
export { limitOf } from './McpCall.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };

/**
 * Returns the client, of the same type, with every request (`callTool`, `listTools`, `readResource`, `ping`...,
 * anything that goes through `request`) run through the resilience pipeline: classified, retried when it can
 * succeed and is safe to repeat, guarded by the server's breaker and budget, recorded. A call site written for
 * a plain `Client` works unchanged. `connect()` and `close()` keep working on the returned client.
 *
 * Works on a `Client` of either SDK line: `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client` 2.x
 * (both optional peer dependencies), with the same options and telemetry. Each request is an {@link McpCall}
 * over the client's {@link McpEdge}.
 */
export function withResilience<C extends McpClientLike>(client: C, options: McpResilienceOptions = {}): C {
  const wrap = (target: Client, fallback: McpResilienceOptions) => withResilience(target, fallback);
  const edge = new McpEdge(client, options, () => proxy, wrap);
  async function request(this: unknown, req: AnyRequest, second?: unknown, third?: unknown) {
    const self = this ?? proxy;
    const args = readRequestArgs(second, third);
    if (UNWRAPPED_METHODS.has(req.method)) return edge.sendUnwrapped(self, req, args);
    return new McpCall(edge, self, req, args, {}).run();
  }
  const internals: ResilientInternals = {
    tools: edge.annotations,
    refreshTools: (signal) => edge.refreshTools(signal),
    server: () => edge.serverName(),
    request: async (req, args, context) => new McpCall(edge, proxy, req, args, context).run(),
  };
  const proxy: C = new Proxy(client, {
    get(target, property, receiver) {
      switch (property) {
        case 'request':
          return request;
        case INTERNALS:
          return internals;
        case 'connect':
          return (transport: TransportLike, connectOptions?: unknown) => {
            edge.reconnector?.callerClosed(false);
            edge.connecting(transport);
            return target.connect.call(receiver, transport, connectOptions);
          };
        case 'close':
          return () => {
            edge.reconnector?.callerClosed(true);
            return target.close.call(receiver);
          };
        default:
          return Reflect.get(target, property, receiver);
      }
    },
  });
  return proxy;
}
