import type { McpClientLike } from '@mcp-resilience/middleware/mcp';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ClientCapabilities,
  Implementation,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
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
    const client = new Client(clientInfo, { capabilities, jsonSchemaValidator: noSchemaValidation });
    client.fallbackRequestHandler = (request, extra) => toHost(request, extra.signal) as never;
    return client as unknown as UpstreamClient;
  }
  const client = new ModernClient(clientInfo, {
    // The same capability shapes; the v2 types are stricter about `experimental`.
    capabilities: capabilities as never,
    jsonSchemaValidator: noSchemaValidation as never,
    versionNegotiation: { mode: { pin: MODERN_REVISION } },
  });
  for (const [method, capability] of Object.entries(INPUT_METHODS)) {
    if (capabilities[capability] === undefined) continue;
    client.setRequestHandler(
      method as 'elicitation/create',
      (request, ctx) => toHost(request as Message, ctx.mcpReq.signal) as never,
    );
  }
  return client as unknown as UpstreamClient;
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
