import { CLIENT_CAPABILITIES_META_KEY, Server } from '@modelcontextprotocol/server';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import type { Upstream } from '../upstream/Upstream.js';
import { answerRootsRounds } from './answerRootsRounds.js';
import { type ForwardOptions, forwardRequest } from './forwardRequest.js';
import type { InputRounds } from './InputRounds.js';

type Message = { method: string; id?: string | number; params?: Record<string, unknown> };
interface ModernContext {
  readonly mcpReq: {
    readonly id: string | number;
    readonly signal: AbortSignal;
    readonly inputResponses?: Record<string, unknown>;
    /** The request's 2026-07-28 envelope (`_meta`): the client's identity and capabilities. */
    readonly envelope?: Record<string, unknown>;
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
 * `input_required` results, which the proxy builds from a 2025-era upstream's requests with {@link InputRounds}):
 * without that (a 2026-07-28 upstream, whose own rounds cross), they are refused with a message that says so,
 * and the upstream's other notifications (`list_changed`...) have no way to such a host outside
 * `subscriptions/listen`.
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
 * `inputResponses` / `requestState` goes back to the upstream: the round crosses, the host answers it (a round
 * that asks only the roots the proxy owns is answered by the proxy: {@link answerRootsRounds}). With
 * `rounds` (one per host connection of `wrap` and `connect`, one per server of a gateway), a 2025-era
 * upstream's server-to-client requests during a call become such rounds too, built by the proxy.
 */
export function createModernHostServer(
  upstream: Upstream,
  options: ForwardOptions = {},
  rounds?: InputRounds,
): Server {
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
    if (rounds !== undefined && upstream.era === 'legacy') {
      return (await crossRounds(rounds, upstream, request as Message, mcpReq, extra, options)) as never;
    }
    const sent = withRound(request as Message, mcpReq);
    return (await answerRootsRounds(upstream.roots, sent, (each) =>
      forwardRequest(upstream, link, each, extra as never, options, 'pass'),
    )) as never;
  };
  return server;
}

/**
 * A 2025-era upstream's call for a host that answers rounds ({@link InputRounds}): a repeat (a `requestState`)
 * resumes the pending call it names, else the request is forwarded as a new call whose server-to-client
 * requests become `input_required` results.
 */
async function crossRounds(
  rounds: InputRounds,
  upstream: Upstream,
  request: Message,
  mcpReq: ModernContext['mcpReq'],
  extra: { signal: AbortSignal; sendNotification: (notification: Message) => Promise<void> },
  options: ForwardOptions,
): Promise<Record<string, unknown>> {
  const state = mcpReq.requestState();
  if (state !== undefined) {
    return (await rounds.resume(state, mcpReq.inputResponses, mcpReq.signal)).result;
  }
  const declared = mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY];
  const turn = await rounds.start(declared, mcpReq.signal, (signal, id, link) =>
    forwardRequest(upstream, link, request, { ...extra, signal, requestId: id } as never, options, 'pass'),
  );
  return turn.result;
}
