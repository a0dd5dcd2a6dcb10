/** MCP methods that never change anything on the server: always safe to repeat. */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set([
  'ping',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'tasks/get',
  'tasks/list',
  // 2026-07-28. The SDK v2 connection probe and `client.discover()` bypass `request()`; a `request()` does not.
  'server/discover',
]);

/** MCP methods that change state, but where a repeat has no further effect: also safe to repeat. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * Methods that never go through the retry loop: `initialize` belongs to `connect()` (the SDK closes the
 * connection when it fails, and `reconnect` runs it again). `server/discover` needs no entry: SDK v2 sends its
 * connection probe on the transport itself, never through `request()`.
 */
export const UNWRAPPED_METHODS: ReadonlySet<string> = new Set(['initialize']);
