export type { McpResilienceOptions } from './McpResilienceOptions.js';
export { mcpDefaults } from './McpResilienceOptions.js';
export { READ_ONLY_METHODS } from './methods.js';
export type { HttpFailure, ObservedFetch } from './observeFetch.js';
export { observeFetch } from './observeFetch.js';
export { ToolResultError } from './ToolResultError.js';
export { CLASSIFICATION_META_KEY, withResilience } from './withResilience.js';
