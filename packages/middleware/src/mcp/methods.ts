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
]);

/** Methods that must never go through the retry loop (the SDK closes the connection when they fail). */
export const UNWRAPPED_METHODS: ReadonlySet<string> = new Set(['initialize']);
