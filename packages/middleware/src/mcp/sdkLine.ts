import type { McpClientLike, RequestOptionsLike, TransportLike } from './McpClientLike.js';

/**
 * What differs between the two SDK lines at the `request()` choke point, in one place:
 * - v1 (`@modelcontextprotocol/sdk` 1.x) always calls `request(request, resultSchema, options)`;
 * - v2 (`@modelcontextprotocol/client` 2.x) calls `request(request, options)` for spec methods, and
 *   `request(request, resultSchema, options)` for custom ones.
 */
export interface RequestArgs {
  /** The result schema, when the caller passed one (a zod or Standard Schema). */
  readonly schema: unknown;
  readonly options: RequestOptionsLike | undefined;
  /** Whether the schema was passed positionally (it is passed on the same way). */
  readonly withSchema: boolean;
}

/** A zod (v3/v4) or Standard Schema object: what `request()` takes as its second argument on v1. */
function isSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return (
    '~standard' in value ||
    '_zod' in value ||
    typeof (value as { safeParse?: unknown }).safeParse === 'function' ||
    typeof (value as { parse?: unknown }).parse === 'function'
  );
}

/** Reads the arguments `request()` was called with, on either line. */
export function readRequestArgs(second: unknown, third: unknown): RequestArgs {
  if (third !== undefined || isSchema(second)) {
    return { schema: second, options: third as RequestOptionsLike | undefined, withSchema: true };
  }
  return { schema: undefined, options: second as RequestOptionsLike | undefined, withSchema: false };
}

/** The argument list to call the SDK's own `request()` with, in the form it was called. */
export function requestArgs(args: RequestArgs, options: RequestOptionsLike): unknown[] {
  return args.withSchema ? [args.schema, options] : [options];
}

/** The first protocol revision without protocol sessions (no `initialize`, no `Mcp-Session-Id`). */
export const SESSIONLESS_REVISION = '2026-07-28';

/** Whether a negotiated protocol version has sessions (every revision before 2026-07-28). */
export const hasSessions = (version: string | undefined): boolean =>
  version === undefined || version < SESSIONLESS_REVISION;

/**
 * The negotiated protocol version: v2's `getNegotiatedProtocolVersion()`, else v1's HTTP transport
 * `protocolVersion`, else the one `initialize` answered (recorded by `withResilience`).
 */
export function protocolVersionOf(
  client: McpClientLike,
  transport: TransportLike | undefined,
  fromInitialize: string | undefined,
): string | undefined {
  const negotiated = (client as { getNegotiatedProtocolVersion?: () => unknown })
    .getNegotiatedProtocolVersion;
  if (typeof negotiated === 'function') {
    const version = negotiated.call(client);
    if (typeof version === 'string') return version;
  }
  const fromTransport = (transport as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return typeof fromTransport === 'string' ? fromTransport : fromInitialize;
}

/** The session id of the transport, only when the protocol revision has sessions. */
export function sessionIdOf(transport: TransportLike | undefined, version: string | undefined) {
  const id = transport?.sessionId;
  return id && hasSessions(version) ? id : undefined;
}

/** `pipe` for stdio, `tcp` for the HTTP and WebSocket transports (OTel MCP semantic conventions). */
export function networkTransport(transport: TransportLike | undefined): string | undefined {
  if (!transport) return undefined;
  if ('pid' in transport) return 'pipe';
  const name = transport.constructor?.name ?? '';
  return /HTTP|SSE|WebSocket/i.test(name) ? 'tcp' : undefined;
}
