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
    readonly inputResponses?: Record<string, unknown>;
    requestState(): unknown;
    notify(notification: Message): Promise<void>;
  };
}

/**
 * The host's request as the upstream is to get it: the SDK v2 lifts a retried round's `inputResponses` and
 * `requestState` out of the params the handler sees; they go back in, unchanged, for the upstream that asked.
 */
function withRound(request: Message, mcpReq: ModernContext['mcpReq']): Message {
  const state = mcpReq.requestState();
  const round = {
    ...(mcpReq.inputResponses === undefined ? {} : { inputResponses: mcpReq.inputResponses }),
    ...(typeof state === 'string' ? { requestState: state } : {}),
  };
  if (Object.keys(round).length === 0) return request;
  return { ...request, params: { ...request.params, ...round } };
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
 * A 2026-07-28 upstream's `input_required` result goes to the host as it is, and the host's repeat with
 * `inputResponses` / `requestState` goes back to the upstream: the round crosses, the host answers it.
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
    const sent = withRound(request as Message, mcpReq);
    return (await forwardRequest(upstream, link, sent, extra as never, options, 'pass')) as never;
  };
  return server;
}
