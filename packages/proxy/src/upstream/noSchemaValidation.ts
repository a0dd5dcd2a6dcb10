import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The JSON Schema validator of the proxy's SDK `Client`s and `Server`s: none. The proxy forwards tool results and
 * elicitation answers; the host and the upstream validate them against their own schemas. Without it, every
 * `Client` and `Server` builds an Ajv instance and compiles each tool's output schema (memory and time per
 * upstream and per host session).
 */
export const noSchemaValidation: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};
