/*
 * The telemetry contract of mcp-resilience (design §4): every metric, span, span event and attribute name,
 * every unit and histogram bucket list, and the Prometheus names they translate to. The dashboard, the
 * Prometheus rules and users' own alerts import these constants; renaming one is a breaking change.
 *
 * This is a plain constants module: it imports nothing (no `@opentelemetry/api`), so it can be loaded
 * anywhere through `@mcp-resilience/middleware/semconv`.
 *
 * The MCP and GenAI names in the "OpenTelemetry semantic conventions" section are COPIES of definitions at
 * Development stability (OpenTelemetry MCP semantic conventions, now in open-telemetry/semantic-conventions-genai),
 * copied here as opentelemetry-js-contrib packages do in their `semconv.ts`, because Development names may change
 * in any minor release of `@opentelemetry/semantic-conventions`. `error.type` and `network.transport` are stable;
 * they are listed here as well so that every name comes from one file.
 */

// ---------------------------------------------------------------------------------------------------------------
// OpenTelemetry semantic conventions (copied; see header)
// ---------------------------------------------------------------------------------------------------------------

/** The JSON-RPC method (`tools/call`, `resources/read`...). Development. */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name' as const;
/** The MCP session id. Development. Span attribute only (high cardinality). */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id' as const;
/** The MCP protocol version. Development. */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version' as const;
/** The resource URI of `resources/read`. Development. Span attribute only (high cardinality). */
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri' as const;
/** The tool's name (`tools/call`). Development. */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name' as const;
/** The prompt's name (`prompts/get`). Development. */
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name' as const;
/** The JSON-RPC error code, as a string. Development. */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code' as const;
/** `pipe` (stdio) or `tcp` (HTTP). Stable. */
export const ATTR_NETWORK_TRANSPORT = 'network.transport' as const;
/** The low-cardinality failure type: here always one of the classifier's `ERROR_TYPES`, else `_OTHER`. Stable. */
export const ATTR_ERROR_TYPE = 'error.type' as const;
/** Duration of an MCP request as seen by the client: one per attempt. Development. */
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration' as const;
/** Bucket advice of the MCP semantic conventions for `mcp.client.operation.duration`, in seconds. */
export const MCP_CLIENT_OPERATION_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];
/** Service resource attributes (stable), set by `setupTelemetry()`. */
export const ATTR_SERVICE_NAME = 'service.name' as const;
export const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id' as const;

// ---------------------------------------------------------------------------------------------------------------
// mcp-resilience attributes
// ---------------------------------------------------------------------------------------------------------------

/** The logical server name given by the user (the endpoint key for plain functions). Metric attribute. */
export const ATTR_MCP_SERVER = 'mcp.server' as const;
/** `retryable` | `non_retryable` | `conditional` (else `_OTHER`). Metric attribute. */
export const ATTR_ERROR_CLASS = 'error.class' as const;
/** Metric attribute: `success` | `failure` | `rejected` (calls), `success` | `failure` (retries). */
export const ATTR_OUTCOME = 'outcome' as const;
/** Breaker state gauge attribute: `closed` | `open` | `half_open`. */
export const ATTR_STATE = 'state' as const;
/** Breaker transition attributes. */
export const ATTR_FROM_STATE = 'from_state' as const;
export const ATTR_TO_STATE = 'to_state' as const;

// Span attributes (never on metrics).
/** The attempt's number, 1-based (attempt spans). */
export const ATTR_MCP_RESILIENCE_ATTEMPT = 'mcp.resilience.attempt' as const;
/** Attempts made by the call (call span). */
export const ATTR_MCP_RESILIENCE_ATTEMPTS = 'mcp.resilience.attempts' as const;
/** The endpoint key: breaker, budget and backoff key. */
export const ATTR_MCP_RESILIENCE_ENDPOINT = 'mcp.resilience.endpoint' as const;
/** The operation name given to `execute`. */
export const ATTR_MCP_RESILIENCE_OPERATION = 'mcp.resilience.operation' as const;
/** How the call ended: `success` | `failure` | `rejected` (call span). */
export const ATTR_MCP_RESILIENCE_OUTCOME = 'mcp.resilience.outcome' as const;
/** Retries of the call that failed, and the time they took including the waits before them (call span). */
export const ATTR_MCP_RESILIENCE_WASTED_RETRIES = 'mcp.resilience.wasted_retries' as const;
export const ATTR_MCP_RESILIENCE_WASTED_TIME_MS = 'mcp.resilience.wasted_time_ms' as const;
/** What the loop did after a failure: one of `DECISION_VALUES`. */
export const ATTR_MCP_RESILIENCE_DECISION = 'mcp.resilience.decision' as const;
/** The planned delay before the next attempt, in milliseconds (0 when none). */
export const ATTR_MCP_RESILIENCE_DELAY_MS = 'mcp.resilience.delay_ms' as const;
/** Whether the operation may have run on the server: `not_sent` | `unknown` | `executed`. */
export const ATTR_MCP_RESILIENCE_EXECUTION = 'mcp.resilience.execution' as const;
/** The classification rule that decided (`http.status`, `node.code`, `rule:<name>`, `default`...). */
export const ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE = 'mcp.resilience.classification.source' as const;
/** Why the call stopped (`non_retryable`, `max_attempts`, `deadline`...), when the decision is `give_up`. */
export const ATTR_MCP_RESILIENCE_GIVE_UP_REASON = 'mcp.resilience.give_up_reason' as const;
/** The wait the endpoint asked for (`Retry-After`, open breaker), in milliseconds. */
export const ATTR_MCP_RESILIENCE_RETRY_AFTER_MS = 'mcp.resilience.retry_after_ms' as const;
/** True when the failure did not count for the circuit breaker. */
export const ATTR_MCP_RESILIENCE_HEALTH_NEUTRAL = 'mcp.resilience.health_neutral' as const;
/** The error's message, redacted and length-capped; absent when message capture is off. */
export const ATTR_MCP_RESILIENCE_ERROR_MESSAGE = 'mcp.resilience.error.message' as const;
/** Why a breaker changed state: `consecutive_failures`, `failure_rate`, `probe_failed`, `probe_succeeded`, `break_elapsed`. */
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON = 'mcp.resilience.circuit_breaker.reason' as const;

// ---------------------------------------------------------------------------------------------------------------
// Attribute values
// ---------------------------------------------------------------------------------------------------------------

/** Any value outside a fixed list becomes `_OTHER` (as in the HTTP semantic conventions). */
export const OTHER_VALUE = '_OTHER' as const;
export const OUTCOME_VALUE_SUCCESS = 'success' as const;
export const OUTCOME_VALUE_FAILURE = 'failure' as const;
export const OUTCOME_VALUE_REJECTED = 'rejected' as const;
/** `outcome` of `mcp.resilience.calls` and `mcp.resilience.call.duration`. */
export const CALL_OUTCOME_VALUES = [
  OUTCOME_VALUE_SUCCESS,
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_REJECTED,
] as const;
/** `outcome` of `mcp.resilience.retries`: whether the retry attempt itself succeeded. */
export const RETRY_OUTCOME_VALUES = [OUTCOME_VALUE_SUCCESS, OUTCOME_VALUE_FAILURE] as const;
/** `mcp.resilience.decision` values. */
export const DECISION_VALUES = [
  'retry',
  'give_up',
  'wait',
  'reconnect',
  'budget_exhausted',
  'circuit_open',
] as const;
/** `state`, `from_state`, `to_state` values. */
export const STATE_VALUES = ['closed', 'open', 'half_open'] as const;

// ---------------------------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------------------------

/** Counter `{call}`: logical calls and how they ended. */
export const METRIC_MCP_RESILIENCE_CALLS = 'mcp.resilience.calls' as const;
/** Counter `{retry}`: attempts 2..N, by their own outcome. Retry efficiency = outcome=success / all. */
export const METRIC_MCP_RESILIENCE_RETRIES = 'mcp.resilience.retries' as const;
/** Counter `{error}`: one per failed attempt, as classified. */
export const METRIC_MCP_RESILIENCE_ERRORS = 'mcp.resilience.errors' as const;
/** Histogram `s`: duration of logical calls, all attempts and waits included. */
export const METRIC_MCP_RESILIENCE_CALL_DURATION = 'mcp.resilience.call.duration' as const;
/** Counter `s` (double): time spent in failed retries, backoff waits before them included. */
export const METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME = 'mcp.resilience.retry.wasted_time' as const;
/** Counter `{cost}` (double): failed retries × the user's `costPerAttempt`; only when that option is set. */
export const METRIC_MCP_RESILIENCE_RETRY_WASTED_COST = 'mcp.resilience.retry.wasted_cost' as const;
/** ObservableGauge (int, one-hot): 1 for a breaker's current `state`, 0 for the others. */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE = 'mcp.resilience.circuit_breaker.state' as const;
/** Counter `{transition}`: every breaker state change. */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS =
  'mcp.resilience.circuit_breaker.transitions' as const;

export const UNIT_CALL = '{call}' as const;
export const UNIT_RETRY = '{retry}' as const;
export const UNIT_ERROR = '{error}' as const;
export const UNIT_TRANSITION = '{transition}' as const;
/** The gauge's unit. Never `1`: the Prometheus translation would append `_ratio`; braces add no suffix. */
export const UNIT_STATE = '{state}' as const;
export const UNIT_COST = '{cost}' as const;
export const UNIT_SECONDS = 's' as const;

/** Explicit bucket boundaries of `mcp.resilience.call.duration`, in seconds (5 ms .. 60 s). */
export const MCP_RESILIENCE_CALL_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

// ---------------------------------------------------------------------------------------------------------------
// Spans and span events
// ---------------------------------------------------------------------------------------------------------------

/**
 * The call span (INTERNAL), one per logical call. A constant, low-cardinality name: the call's server, method
 * and tool are its attributes. Its children are the attempt spans (CLIENT), named per the MCP conventions
 * `{mcp.method.name} {target}` (target = `gen_ai.tool.name` or `gen_ai.prompt.name`, omitted when absent).
 */
export const SPAN_MCP_RESILIENCE_CALL = 'mcp.resilience.call' as const;
/** A short standalone span (INTERNAL) carrying a breaker transition that happened outside any open call. */
export const SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION =
  'mcp.resilience.circuit_breaker.transition' as const;
/** Span event on each failed attempt's span: classification and the decision taken. */
export const EVENT_MCP_RESILIENCE_CLASSIFICATION = 'mcp.resilience.classification' as const;
/** Span event for each breaker state change. */
export const EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION =
  'mcp.resilience.circuit_breaker.transition' as const;

/** The instrumentation scope of the tracer and meter. */
export const INSTRUMENTATION_SCOPE_NAME = '@mcp-resilience/middleware' as const;

// ---------------------------------------------------------------------------------------------------------------
// Prometheus names (standard OTLP → Prometheus translation: dots → `_`, unit suffix, `_total` on counters)
// ---------------------------------------------------------------------------------------------------------------

export const PROM_MCP_RESILIENCE_CALLS_TOTAL = 'mcp_resilience_calls_total' as const;
export const PROM_MCP_RESILIENCE_RETRIES_TOTAL = 'mcp_resilience_retries_total' as const;
export const PROM_MCP_RESILIENCE_ERRORS_TOTAL = 'mcp_resilience_errors_total' as const;
export const PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS = 'mcp_resilience_call_duration_seconds' as const;
export const PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET =
  'mcp_resilience_call_duration_seconds_bucket' as const;
export const PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM =
  'mcp_resilience_call_duration_seconds_sum' as const;
export const PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT =
  'mcp_resilience_call_duration_seconds_count' as const;
export const PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL =
  'mcp_resilience_retry_wasted_time_seconds_total' as const;
export const PROM_MCP_RESILIENCE_RETRY_WASTED_COST_TOTAL = 'mcp_resilience_retry_wasted_cost_total' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE = 'mcp_resilience_circuit_breaker_state' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL =
  'mcp_resilience_circuit_breaker_transitions_total' as const;
export const PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS = 'mcp_client_operation_duration_seconds' as const;
export const PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS_BUCKET =
  'mcp_client_operation_duration_seconds_bucket' as const;
export const PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS_SUM =
  'mcp_client_operation_duration_seconds_sum' as const;
export const PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS_COUNT =
  'mcp_client_operation_duration_seconds_count' as const;

/** Prometheus labels (attribute names with dots → `_`). */
export const PROM_LABEL_MCP_SERVER = 'mcp_server' as const;
export const PROM_LABEL_MCP_METHOD_NAME = 'mcp_method_name' as const;
export const PROM_LABEL_GEN_AI_TOOL_NAME = 'gen_ai_tool_name' as const;
export const PROM_LABEL_NETWORK_TRANSPORT = 'network_transport' as const;
export const PROM_LABEL_ERROR_TYPE = 'error_type' as const;
export const PROM_LABEL_ERROR_CLASS = 'error_class' as const;
export const PROM_LABEL_OUTCOME = 'outcome' as const;
export const PROM_LABEL_STATE = 'state' as const;
export const PROM_LABEL_FROM_STATE = 'from_state' as const;
export const PROM_LABEL_TO_STATE = 'to_state' as const;

// ---------------------------------------------------------------------------------------------------------------
// The breaker's gate (issue #11): calls waiting for an open breaker's verdict instead of failing at once
// ---------------------------------------------------------------------------------------------------------------

/** Histogram `s`: how long calls waited at a breaker's gate; attrs `mcp.server` (+ tool), `outcome`. */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION =
  'mcp.resilience.circuit_breaker.wait.duration' as const;
/** ObservableGauge `{call}`: calls waiting at a breaker's gate now; attrs `mcp.server` (+ tool). */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING =
  'mcp.resilience.circuit_breaker.waiting' as const;
/** Counter `{call}`: calls shed at once because a breaker's wait queue was full; attrs `mcp.server` (+ tool). */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED = 'mcp.resilience.circuit_breaker.shed' as const;
/** Call span attribute: milliseconds the call waited at its breaker's gate, in total (set when it waited). */
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS = 'mcp.resilience.circuit_breaker.wait_ms' as const;
/** Call span event, timestamped at the start of a wait at the gate; attrs `outcome` and the wait's `wait_ms`. */
export const EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT = 'mcp.resilience.circuit_breaker.wait' as const;
/** `outcome` of a wait: released (the attempt went), timeout (deadline or wait limit first), aborted, shed. */
export const WAIT_OUTCOME_VALUES = ['released', 'timeout', 'aborted', 'shed'] as const;
/** Give-up reason of a call shed by a full wait queue (`circuit_open` stays for "cannot wait"). */
export const GIVE_UP_REASON_VALUE_SHED = 'shed' as const;
/** Explicit bucket boundaries of the wait histogram, in seconds (10 ms .. 60 s). */
export const MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60,
];
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_SECONDS =
  'mcp_resilience_circuit_breaker_wait_duration_seconds' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_SECONDS_BUCKET =
  'mcp_resilience_circuit_breaker_wait_duration_seconds_bucket' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_SECONDS_SUM =
  'mcp_resilience_circuit_breaker_wait_duration_seconds_sum' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_SECONDS_COUNT =
  'mcp_resilience_circuit_breaker_wait_duration_seconds_count' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING = 'mcp_resilience_circuit_breaker_waiting' as const;
export const PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED_TOTAL =
  'mcp_resilience_circuit_breaker_shed_total' as const;
