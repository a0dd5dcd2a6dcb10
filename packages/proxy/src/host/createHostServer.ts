import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ResultSchema as ResultSchemaLoose } from '@modelcontextprotocol/sdk/types.js';
import { leanDispatch } from '../transport/leanDispatch.js';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import { noSchemaValidation } from '../upstream/noSchemaValidation.js';
import type { Upstream } from '../upstream/Upstream.js';
import { type DirectExtra, DirectRequests } from './DirectRequests.js';
import { type ForwardOptions, forwardRequest } from './forwardRequest.js';

type JsonRpcRequestLike = { method: string; params?: Record<string, unknown>; id?: string | number };

export const hostDefaults = { maxPendingRequests: 256, directRequests: false } as const;

/** Options of {@link createHostServer}. All optional. */
export interface HostServerOptions extends ForwardOptions {
  /** Requests of this host in flight at once; beyond it a request is refused. Default 256. */
  readonly maxPendingRequests?: number;
  /**
   * The forwarded requests (`DIRECT_METHODS`) served straight from the transport ({@link DirectRequests}),
   * without the SDK `Server`'s request layer. Default `false`; `wrap` and `connect` (one stdio host) turn it on.
   * The gateway keeps the SDK's layer: on Streamable HTTP with 100 concurrent callers the direct path measured
   * lower throughput in 5 of 6 alternating runs, for a cause not found yet.
   */
  readonly directRequests?: boolean;
}

/** Host sessions made in this process: each one's `caller` (its own negative cache memory upstream). */
let hostSessions = 0;

/** The capability a server-to-client method needs, as the host declared it in `initialize`. */
const NEEDS: Readonly<Record<string, (c: Record<string, unknown>) => boolean>> = {
  'sampling/createMessage': (c) => c.sampling !== undefined,
  'elicitation/create': (c) => c.elicitation !== undefined,
  'roots/list': (c) => c.roots !== undefined,
};

/**
 * The SDK `Server` (the low-level one) that faces one host session and forwards everything to `upstream`: it
 * answers `initialize` with the upstream's identity, capabilities and instructions (and the protocol revision
 * the host asked for, when the SDK speaks it), forwards every other request (`tools/*`, `resources/*`,
 * `prompts/*`, `completion/complete`, `logging/setLevel`, custom methods) and every notification, and sends
 * the upstream's notifications and server-to-client requests back. `ping` is answered by the proxy itself.
 */
export function createHostServer(upstream: Upstream, options: HostServerOptions = {}): Server {
  const maxPending = options.maxPendingRequests ?? hostDefaults.maxPendingRequests;
  let pending = 0;
  // The forwarded requests skip the Server's request layer; the same handler serves them.
  const direct =
    (options.directRequests ?? hostDefaults.directRequests)
      ? new DirectRequests(
          (request, extra) => forward(request, extra),
          (error) => server.onerror?.(error),
        )
      : undefined;
  const server = leanDispatch(
    new Server(upstream.serverInfo, {
      capabilities: upstream.capabilities,
      jsonSchemaValidator: noSchemaValidation,
      ...(upstream.instructions === undefined ? {} : { instructions: upstream.instructions }),
    }),
    direct,
  );
  // The SDK's own `logging/setLevel` handler only filters locally: the upstream decides what it logs.
  server.removeRequestHandler('logging/setLevel');
  const link: HostLink = {
    caller: `host-session-${++hostSessions}`,
    request: (request, requestOptions) => server.request(request as never, ResultSchemaLoose, requestOptions),
    notify: (notification) => server.notification(notification as never),
    accepts: (method) => {
      const capabilities = (server.getClientCapabilities() ?? {}) as Record<string, unknown>;
      return NEEDS[method]?.(capabilities) ?? true;
    },
  };
  const forward = async (request: JsonRpcRequestLike, extra: DirectExtra) => {
    if (pending >= maxPending) {
      throw new ForwardedError(
        -32000,
        `mcp-resilience: ${maxPending} requests of this host are already in flight (maxPendingRequests): try again when one ends`,
      );
    }
    pending++;
    try {
      return (await forwardRequest(upstream, link, request, extra, options)) as never;
    } finally {
      pending--;
    }
  };
  // A method outside DIRECT_METHODS (a custom one, `logging/setLevel`) still comes through the Server.
  server.fallbackRequestHandler = (request, extra) => forward(request, extra) as never;
  server.fallbackNotificationHandler = (notification) => upstream.notify(notification);
  const detach = upstream.attach(link);
  const previous = server.onclose;
  server.onclose = () => {
    direct?.close();
    detach();
    previous?.();
  };
  return server;
}
