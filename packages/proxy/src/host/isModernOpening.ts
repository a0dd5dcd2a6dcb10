import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Whether a host's first message over stdio opens protocol revision 2026-07-28 or later: a request other than
 * `initialize` whose `_meta` carries the per-request envelope's protocol version (an SDK v2 host's
 * `server/discover`, in `'auto'` or pinned mode). stdio has no header, so the body is the only signal; the rest
 * of the envelope is checked by the SDK's own stdio entry, which answers a wrong one. `initialize` and a message
 * without the claim open 2025-11-25, as before.
 */
export function isModernOpening(message: JSONRPCMessage): boolean {
  const { method, params } = message as { method?: unknown; params?: { _meta?: unknown } };
  if (typeof method !== 'string' || method === 'initialize') return false;
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}
