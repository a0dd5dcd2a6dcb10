import type { Attributes } from '@opentelemetry/api';
import { ERROR_CLASSES, ERROR_TYPES } from '../classify/Classification.js';
import { BREAKER_STATES } from '../decide/BreakerState.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESILIENCE_ENDPOINT,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OPERATION,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  ERROR_TYPE_VALUE_TOOL_ERROR,
  OTHER_VALUE,
} from './semconv.js';

type Source = Readonly<Record<string, string>>;

const oneOf =
  (values: readonly string[]) =>
  (value: unknown): string =>
    typeof value === 'string' && values.includes(value) ? value : OTHER_VALUE;

/** `mcp.resilience.error.type`: one of the classifier's `ERROR_TYPES`, else `_OTHER` (a user rule may return anything). */
export const errorTypeValue = oneOf(ERROR_TYPES);
/** `mcp.resilience.error.class`: `retryable` | `non_retryable` | `conditional`, else `_OTHER`. */
export const errorClassValue = oneOf(ERROR_CLASSES);
/** `mcp.resilience.circuit_breaker.{state,from_state,to_state}`: `closed` | `open` | `half_open`, else `_OTHER`. */
export const stateValue = oneOf(BREAKER_STATES);

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** `mcp.resilience.server`: the edge's attribute, else the endpoint key. */
export const serverOf = (endpoint: string, attributes: Source): string =>
  nonEmpty(attributes[ATTR_MCP_RESILIENCE_SERVER]) ?? endpoint;

/** `mcp.method.name`: the edge's attribute, else the operation name. */
export const methodOf = (operation: string, attributes: Source): string =>
  nonEmpty(attributes[ATTR_MCP_METHOD_NAME]) ?? operation;

/** The low-cardinality attributes every call metric carries: server, method and, for tools, the tool. */
export function callMetricAttributes(ref: {
  endpoint: string;
  operation: string;
  attributes: Source;
}): Attributes {
  const attributes: Attributes = {
    [ATTR_MCP_RESILIENCE_SERVER]: serverOf(ref.endpoint, ref.attributes),
    [ATTR_MCP_METHOD_NAME]: methodOf(ref.operation, ref.attributes),
  };
  const tool = nonEmpty(ref.attributes[ATTR_GEN_AI_TOOL_NAME]);
  if (tool !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = tool;
  withVariant(attributes, ref.attributes);
  return attributes;
}

/** `mcp.client.operation.duration` attributes (MCP semantic conventions), without `error.type`. */
export function operationMetricAttributes(ref: { operation: string; attributes: Source }): Attributes {
  const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: methodOf(ref.operation, ref.attributes) };
  const tool = nonEmpty(ref.attributes[ATTR_GEN_AI_TOOL_NAME]);
  if (tool !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = tool;
  const transport = nonEmpty(ref.attributes[ATTR_NETWORK_TRANSPORT]);
  if (transport !== undefined) attributes[ATTR_NETWORK_TRANSPORT] = transport;
  withVariant(attributes, ref.attributes);
  return attributes;
}

/**
 * A breaker's metric attributes, from the endpoint's attributes (`CallOptions.endpointAttributes`): `mcp.resilience.server`
 * (the endpoint key when none is given), plus `gen_ai.tool.name` for a per-tool breaker.
 */
export function breakerMetricAttributes(endpoint: string, attributes: Source): Attributes {
  const result: Attributes = { [ATTR_MCP_RESILIENCE_SERVER]: serverOf(endpoint, attributes) };
  const tool = nonEmpty(attributes[ATTR_GEN_AI_TOOL_NAME]);
  if (tool !== undefined) result[ATTR_GEN_AI_TOOL_NAME] = tool;
  return result;
}

/** Span attributes of a call: every attribute the caller or edge gave, plus server, method, endpoint, operation. */
export function callSpanAttributes(ref: {
  endpoint: string;
  operation: string;
  attributes: Source;
}): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(ref.attributes)) {
    if (typeof value === 'string') attributes[key] = value;
  }
  attributes[ATTR_MCP_RESILIENCE_SERVER] = serverOf(ref.endpoint, ref.attributes);
  attributes[ATTR_MCP_METHOD_NAME] = methodOf(ref.operation, ref.attributes);
  attributes[ATTR_MCP_RESILIENCE_ENDPOINT] = ref.endpoint;
  attributes[ATTR_MCP_RESILIENCE_OPERATION] = ref.operation;
  return attributes;
}

/** The attempt span's name per the MCP conventions: `{mcp.method.name} {target}`, target omitted when unknown. */
export function attemptSpanName(ref: { operation: string; attributes: Source }): string {
  const method = methodOf(ref.operation, ref.attributes);
  const target =
    nonEmpty(ref.attributes[ATTR_GEN_AI_TOOL_NAME]) ?? nonEmpty(ref.attributes[ATTR_GEN_AI_PROMPT_NAME]);
  return target === undefined ? method : `${method} ${target}`;
}

/** The classifier's `mcp.resilience.error.type` and `mcp.resilience.error.class` of a failure, normalized. */
export function errorAttributes(classification: { type?: unknown; class?: unknown } | undefined): Attributes {
  return {
    [ATTR_MCP_RESILIENCE_ERROR_TYPE]: errorTypeValue(classification?.type),
    [ATTR_MCP_RESILIENCE_ERROR_CLASS]: errorClassValue(classification?.class),
  };
}

/**
 * `error.type` in its OTel meaning: what the edge annotated (the JSON-RPC code, `tool_error`), else the
 * classifier's type, the domain-specific value the conventions allow when there is no code.
 */
export const semconvErrorType = (
  annotated: Readonly<Record<string, string>>,
  classification: { type?: unknown } | undefined,
): string => annotated[ATTR_ERROR_TYPE] ?? errorTypeValue(classification?.type);

/** A JSON-RPC error code as a string (`-32602`). */
const JSON_RPC_CODE = /^-?\d{1,6}$/;
/** Attributes an edge may annotate an attempt with (`annotateAttempt`), each with a check of its value. */
const ATTEMPT_ATTRIBUTES: Readonly<Record<string, (value: string) => boolean>> = {
  [ATTR_JSONRPC_REQUEST_ID]: (value) => value.length <= 128,
  [ATTR_MCP_PROTOCOL_VERSION]: (value) => value.length <= 32,
  [ATTR_MCP_SESSION_ID]: (value) => value.length <= 256,
  [ATTR_RPC_RESPONSE_STATUS_CODE]: (value) => JSON_RPC_CODE.test(value),
  [ATTR_ERROR_TYPE]: (value) =>
    JSON_RPC_CODE.test(value) ||
    value === ERROR_TYPE_VALUE_TOOL_ERROR ||
    (ERROR_TYPES as readonly string[]).includes(value),
};

/**
 * The MCP-conventions attributes of one attempt (`jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id`,
 * `rpc.response.status_code`, `error.type`), from what the edge annotated: unknown keys and bad values dropped.
 */
export function attemptSemconvAttributes(
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (!annotations) return attributes;
  for (const [key, valid] of Object.entries(ATTEMPT_ATTRIBUTES)) {
    const value = annotations[key];
    if (typeof value === 'string' && value !== '' && valid(value)) attributes[key] = value;
  }
  return attributes;
}

/** Adds `mcp.resilience.variant` (experiments) when the call or endpoint has one. */
export function withVariant(attributes: Attributes, source: Source): void {
  const variant = nonEmpty(source[ATTR_MCP_RESILIENCE_VARIANT]);
  if (variant !== undefined) attributes[ATTR_MCP_RESILIENCE_VARIANT] = variant;
}
