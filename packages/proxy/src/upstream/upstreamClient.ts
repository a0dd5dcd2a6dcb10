import type { McpClientLike } from '@mcp-resilience/middleware/mcp';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ClientCapabilities,
  Implementation,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { leanDispatch } from '../transport/leanDispatch.js';
import { noSchemaValidation } from './noSchemaValidation.js';

/** The revision without `initialize` and sessions, which the SDK v2 client speaks (`server/discover`). */
export const MODERN_REVISION = '2026-07-28';

/**
 * Which protocol era the proxy speaks with an upstream: `legacy` (2025-11-25 and earlier, `initialize`, the SDK
 * v1 `Client`) or `modern` (2026-07-28, `server/discover`, the SDK v2 `Client` pinned to that revision).
 */
export type UpstreamEra = 'legacy' | 'modern';

type Message = { method: string; params?: Record<string, unknown> };

/** A server-to-client request as either SDK line hands it over (v1: `extra.signal`; v2: `ctx.mcpReq.signal`). */
export type ToHost = (request: Message, signal: AbortSignal) => Promise<unknown>;

/** What {@link Upstream} uses of a client, the same on both SDK lines. */
export interface UpstreamClient extends McpClientLike {
  notification(notification: Message): Promise<void>;
  onclose?: (() => void) | undefined;
  fallbackNotificationHandler?: ((notification: Message) => Promise<void>) | undefined;
  getServerCapabilities(): ServerCapabilities | undefined;
  getServerVersion(): Implementation | undefined;
  getInstructions(): string | undefined;
}

/** The server-to-client requests of 2025-11-25, which 2026-07-28 embeds in `input_required` results instead. */
const INPUT_METHODS = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;

/**
 * A client for one era, announcing `capabilities` and sending server-to-client requests to `toHost`:
 * - legacy: the upstream's requests (`sampling/createMessage`, `elicitation/create`, `roots/list`) go to the host;
 * - modern: the upstream asks for input in an `input_required` result; the SDK fulfils each embedded request
 *   through the handler of its method (registered for each capability the host declared), which sends it to the
 *   host as the 2025-11-25 request it is, then repeats the call with the answers. Without the capability, the
 *   result is refused (`UNSUPPORTED_RESULT_TYPE`, non-retryable) instead of being passed on.
 */
export function upstreamClient(
  era: UpstreamEra,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
  toHost: ToHost,
): UpstreamClient {
  if (era === 'legacy') {
    const client = leanDispatch(
      new Client(clientInfo, { capabilities, jsonSchemaValidator: noSchemaValidation }),
    );
    client.fallbackRequestHandler = (request, extra) => toHost(request, extra.signal) as never;
    return client as unknown as UpstreamClient;
  }
  const client = new ModernClient(clientInfo, {
    // The same capability shapes; the v2 types are stricter about `experimental`.
    capabilities: capabilities as never,
    jsonSchemaValidator: noSchemaValidation as never,
    versionNegotiation: { mode: { pin: MODERN_REVISION } },
  });
  listenOnEachConnection(client);
  for (const [method, capability] of Object.entries(INPUT_METHODS)) {
    if (capabilities[capability] === undefined) continue;
    client.setRequestHandler(
      method as 'elicitation/create',
      (request, ctx) => toHost(request as Message, ctx.mcpReq.signal) as never,
    );
  }
  return client as unknown as UpstreamClient;
}

/** The change notifications of 2026-07-28, which come only on a `subscriptions/listen` stream. */
const CHANGES = [
  ['tools', 'toolsListChanged', 'notifications/tools/list_changed'],
  ['prompts', 'promptsListChanged', 'notifications/prompts/list_changed'],
  ['resources', 'resourcesListChanged', 'notifications/resources/list_changed'],
] as const;

/** How long a connection waits for the upstream to acknowledge its `subscriptions/listen`. */
const LISTEN_ACK_MS = 5000;

/**
 * On 2026-07-28 the upstream's `list_changed` notifications come only on a `subscriptions/listen` stream: after
 * each connection (the first and every reconnection), one is opened for the lists the server says change, and
 * what it delivers goes where a 2025-era notification goes (`fallbackNotificationHandler`, to the hosts). A
 * failed listen leaves the calls alone.
 */
function listenOnEachConnection(client: ModernClient): void {
  for (const [, , method] of CHANGES) {
    client.setNotificationHandler(method, (notification) =>
      (client as unknown as UpstreamClient).fallbackNotificationHandler?.(notification as Message),
    );
  }
  const connect = client.connect.bind(client);
  client.connect = async (...args: Parameters<typeof connect>) => {
    await connect(...args);
    const capabilities = client.getServerCapabilities() ?? {};
    const filter = Object.fromEntries(
      CHANGES.filter(([list]) => capabilities[list]?.listChanged === true).map(([, key]) => [key, true]),
    );
    // Awaited (its acknowledgement, at most LISTEN_ACK_MS): a change after the connection reaches the hosts.
    if (Object.keys(filter).length > 0) {
      await client.listen(filter, { timeout: LISTEN_ACK_MS }).catch(() => {});
    }
  };
}

/**
 * Whether a failed connection says the upstream speaks none of the legacy revisions: it answered `initialize`
 * with `-32022` (unsupported protocol version), as a 2026-07-28-only server does (the classifier's verdict,
 * over stdio or in an HTTP error body).
 */
export function refusesLegacyEra(error: unknown): boolean {
  const source = (error as { classification?: { source?: unknown } } | null)?.classification?.source;
  return typeof source === 'string' && source.endsWith('mcp.protocol.unsupported_version');
}
