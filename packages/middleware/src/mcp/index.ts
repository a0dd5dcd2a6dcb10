export { connectWithResilience, type TransportFactory } from './connectWithResilience.js';
export type { FallbackTarget } from './fallback.js';
export { forCaller } from './forCaller.js';
export type { McpClientLike, TransportLike } from './McpClientLike.js';
export type {
  Idempotency,
  McpOptions,
  McpResilienceOptions,
  NegativeCacheOptions,
  ResultOutcome,
} from './McpResilienceOptions.js';
export type { McpRuleContext } from './mcpRules.js';
export { mcpRules } from './mcpRules.js';
export type { HttpFailure, ObservedFetch } from './observeFetch.js';
export { observeFetch } from './observeFetch.js';
export type { TerminalOutcome } from './outcomeResult.js';
export { TERMINAL_OUTCOMES } from './outcomeResult.js';
export { protocolRevisionRule } from './protocolRevisionRule.js';
export { ReconnectError } from './ReconnectError.js';
export { StreamBrokenError } from './StreamBrokenError.js';
export { ToolResultError } from './ToolResultError.js';
export { type ViewContext, withCallContext } from './withCallContext.js';
export type { McpClassificationMeta } from './withResilience.js';
export { CLASSIFICATION_META_KEY, withResilience } from './withResilience.js';
