import { Server } from '@modelcontextprotocol/server';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import type { Upstream } from '../upstream/Upstream.js';
import { type ForwardOptions, forwardRequest } from './forwardRequest.js';

type Message = { method: string; id?: string | number; params?: Record<string, unknown> };
interface ModernContext {
  readonly mcpReq: {
    readonly id: string | number;
    readonly signal: AbortSignal;
    notify(notification: Message): Promise<void>;
  };
}

/**
 * What a host on 2026-07-28 can receive besides its responses: only the notifications related to its request
 * (progress), on that request's stream. The revision has no server-to-client requests (it embeds them in
 * `input_required` results, which this proxy does not build from a 2025-era upstream's requests): they are
 * refused with a message that says so, and the upstream's other notifications (`list_changed`...) have no way to
 * such a host outside `subscriptions/listen`, which the proxy does not serve.
 */
const modernHostLink = (server: string): HostLink => ({
  request: (request) =>
    Promise.reject(
      new ForwardedError(
        -32601,
        `mcp-resilience: "${request.method}" from upstream "${server}" cannot be forwarded: the host speaks protocol revision 2026-07-28, which has no server-to-client requests`,
      ),
    ),
  notify: async () => {},
  accepts: () => true,
});

/**
 * The SDK v2 `Server` (the low-level one) that answers one 2026-07-28 request of a host (the SDK's
 * `createMcpHandler` builds one per request): `server/discover` with the upstream's identity, capabilities and
 * instructions, every other request forwarded to `upstream` through the same {@link forwardRequest} as on
 * 2025-11-25 (the pipeline, progress mapped onto the request's stream, cancellation when the host closes it).
 */
export function createModernHostServer(upstream: Upstream, options: ForwardOptions = {}): Server {
  const server = new Server(upstream.serverInfo, {
    // The same capability shapes; the v2 types are stricter about `experimental`.
    capabilities: upstream.capabilities as never,
    ...(upstream.instructions === undefined ? {} : { instructions: upstream.instructions }),
  });
  const link = modernHostLink(upstream.name);
  server.fallbackRequestHandler = async (request, ctx) => {
    const { mcpReq } = ctx as unknown as ModernContext;
    const extra = {
      signal: mcpReq.signal,
      requestId: mcpReq.id,
      sendNotification: (notification: Message) => mcpReq.notify(notification),
    };
    return (await forwardRequest(upstream, link, request as Message, extra as never, options)) as never;
  };
  return server;
}
