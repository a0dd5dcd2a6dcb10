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

/** The JSON-RPC method (`tools/call`, `resources/read`...). Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md (model/mcp/registry.yaml). */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name' as const;
/**
 * The MCP session id. Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md. Span attribute only (high cardinality); set only when a session
 * exists (never for a 2026-07-28 peer, which has no protocol sessions).
 */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id' as const;
/** The negotiated MCP protocol version (`2025-11-25`, `2026-07-28`). Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md. */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version' as const;
/** The resource URI of `resources/read`. Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md. Span attribute only (high cardinality). */
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri' as const;
/** The tool's name (`tools/call`). Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md (gen-ai registry). */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name' as const;
/** The prompt's name (`prompts/get`). Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md (gen-ai registry). */
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name' as const;
/** The JSON-RPC error code, as a string. Release candidate; source: open-telemetry/semantic-conventions docs/registry/attributes/rpc.md (replaces `rpc.jsonrpc.error_code`). */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code' as const;
/** `pipe` (stdio) or `tcp` (HTTP). Stable; source: open-telemetry/semantic-conventions docs/registry/attributes/network.md. */
export const ATTR_NETWORK_TRANSPORT = 'network.transport' as const;
/**
 * The low-cardinality failure type, in its OTel meaning only. Stable; source: open-telemetry/semantic-conventions
 * docs/registry/attributes/error.md, and the MCP conventions: the JSON-RPC error code (`-32602`), `tool_error` for an
 * `isError` result, else (no code: a network fault, a timeout, an open breaker) the classifier's type as the
 * domain-specific value the conventions allow. On attempt spans, `mcp.client.operation.duration` and the call span
 * (its last failed attempt's). Never on `mcp.resilience.*` metrics: they carry `mcp.resilience.error.type`.
 */
export const ATTR_ERROR_TYPE = 'error.type' as const;
/** Duration of an MCP request as seen by the client: one per attempt. Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md (model/mcp/metrics.yaml). */
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration' as const;
/** Bucket advice of the MCP semantic conventions for `mcp.client.operation.duration`, in seconds (source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md). */
export const MCP_CLIENT_OPERATION_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];
/** Service resource attributes (stable; source: open-telemetry/semantic-conventions docs/registry/attributes/service.md), set by `setupTelemetry()`. */
export const ATTR_SERVICE_NAME = 'service.name' as const;
export const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id' as const;

// ---------------------------------------------------------------------------------------------------------------
// mcp-resilience attributes
// ---------------------------------------------------------------------------------------------------------------

/** The logical server name given by the user (the endpoint key for plain functions). Metric and span attribute. */
export const ATTR_MCP_RESILIENCE_SERVER = 'mcp.resilience.server' as const;
/** The classifier's class: `retryable` | `non_retryable` | `conditional` (else `_OTHER`). Metric and span attribute. */
export const ATTR_MCP_RESILIENCE_ERROR_CLASS = 'mcp.resilience.error.class' as const;
/**
 * The classifier's type of a failure (`ERROR_TYPES`, else `_OTHER`): on every `mcp.resilience.*` metric, on the
 * call and attempt spans and on the classification event. Not `error.type`, which keeps its OTel meaning (the
 * JSON-RPC code, `tool_error`...) and appears only on spans and on `mcp.client.operation.duration`.
 */
export const ATTR_MCP_RESILIENCE_ERROR_TYPE = 'mcp.resilience.error.type' as const;
/**
 * How a call, a retry or a wait ended. Calls (metrics and call span): `success` | `failure` | `rejected`; retries:
 * `success` | `failure`; waits at the breaker's gate: `WAIT_OUTCOME_VALUES`; fallbacks: `success` | `failure`.
 */
export const ATTR_MCP_RESILIENCE_OUTCOME = 'mcp.resilience.outcome' as const;
/** Breaker state gauge attribute: `closed` | `open` | `half_open`. */
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE = 'mcp.resilience.circuit_breaker.state' as const;
/** Breaker transition attributes (transitions counter and span event). */
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE =
  'mcp.resilience.circuit_breaker.from_state' as const;
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE =
  'mcp.resilience.circuit_breaker.to_state' as const;

// Span attributes (never on metrics).
/** The attempt's number, 1-based (attempt spans). */
export const ATTR_MCP_RESILIENCE_ATTEMPT = 'mcp.resilience.attempt' as const;
/** Attempts made by the call (call span). */
export const ATTR_MCP_RESILIENCE_ATTEMPTS = 'mcp.resilience.attempts' as const;
/** The endpoint key: breaker, budget and backoff key. */
export const ATTR_MCP_RESILIENCE_ENDPOINT = 'mcp.resilience.endpoint' as const;
/** The operation name given to `execute`. */
export const ATTR_MCP_RESILIENCE_OPERATION = 'mcp.resilience.operation' as const;
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
/** `mcp.resilience.outcome` of `mcp.resilience.calls` and `mcp.resilience.call.duration`. */
export const CALL_OUTCOME_VALUES = [
  OUTCOME_VALUE_SUCCESS,
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_REJECTED,
] as const;
/** `mcp.resilience.outcome` of `mcp.resilience.retries`: whether the retry attempt itself succeeded. */
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
/** `mcp.resilience.circuit_breaker.{state,from_state,to_state}` values. */
export const STATE_VALUES = ['closed', 'open', 'half_open'] as const;

// ---------------------------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------------------------

/** Counter `{call}`: logical calls and how they ended. */
export const METRIC_MCP_RESILIENCE_CALLS = 'mcp.resilience.calls' as const;
/** Counter `{retry}`: attempts 2..N, by their own outcome. Retry efficiency = `mcp.resilience.outcome` = success / all. */
export const METRIC_MCP_RESILIENCE_RETRIES = 'mcp.resilience.retries' as const;
/** Counter `{error}`: one per failed attempt, as classified. */
export const METRIC_MCP_RESILIENCE_ERRORS = 'mcp.resilience.errors' as const;
/** Histogram `s`: duration of logical calls, all attempts and waits included. */
export const METRIC_MCP_RESILIENCE_CALL_DURATION = 'mcp.resilience.call.duration' as const;
/** Counter `s` (double): time spent in failed retries, backoff waits before them included. */
export const METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME = 'mcp.resilience.retry.wasted_time' as const;
/** Counter `{cost}` (double): failed retries × the user's `costPerAttempt`; only when that option is set. */
export const METRIC_MCP_RESILIENCE_RETRY_WASTED_COST = 'mcp.resilience.retry.wasted_cost' as const;
/** ObservableGauge (int, one-hot): 1 for a breaker's current `mcp.resilience.circuit_breaker.state`, 0 for the others. */
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
export const PROM_LABEL_MCP_RESILIENCE_SERVER = 'mcp_resilience_server' as const;
export const PROM_LABEL_MCP_METHOD_NAME = 'mcp_method_name' as const;
export const PROM_LABEL_GEN_AI_TOOL_NAME = 'gen_ai_tool_name' as const;
export const PROM_LABEL_NETWORK_TRANSPORT = 'network_transport' as const;
/** `error.type` (OTel meaning): on `mcp_client_operation_duration_seconds` only. */
export const PROM_LABEL_ERROR_TYPE = 'error_type' as const;
export const PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE = 'mcp_resilience_error_type' as const;
export const PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS = 'mcp_resilience_error_class' as const;
export const PROM_LABEL_MCP_RESILIENCE_OUTCOME = 'mcp_resilience_outcome' as const;
export const PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE =
  'mcp_resilience_circuit_breaker_state' as const;
export const PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE =
  'mcp_resilience_circuit_breaker_from_state' as const;
export const PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE =
  'mcp_resilience_circuit_breaker_to_state' as const;

// ---------------------------------------------------------------------------------------------------------------
// The agent loop (withResilience: negative cache, fallback servers)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Counter `{call}`: repeats of a `tools/call` that failed non-retryably a moment ago (same server, tool and
 * arguments and, in an experiment, variant), answered from the negative cache without a request. Attrs: server,
 * method, tool, `mcp.resilience.error.type`, variant.
 */
export const METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED = 'mcp.resilience.model_retries.avoided' as const;
/** Counter `s` (double): the duration of the original failed call, per avoided repeat. Same attributes. */
export const METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME =
  'mcp.resilience.model_retries.saved_time' as const;
/**
 * Counter `{cost}` (double): the attempts of the original failed call × the user's `costPerAttempt`, per avoided
 * repeat (what the repeat would have cost); only when that option is set. Same attributes.
 */
export const METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST =
  'mcp.resilience.model_retries.saved_cost' as const;
/**
 * Counter `{call}`: calls sent to a fallback server. Attrs: `mcp.resilience.server` (the primary),
 * `mcp.resilience.fallback.server` (the target), tool, `mcp.resilience.outcome` = success | failure, variant (the primary call's).
 */
export const METRIC_MCP_RESILIENCE_FALLBACKS = 'mcp.resilience.fallbacks' as const;
/** The fallback server a call went to (metric attribute of `mcp.resilience.fallbacks`, span attribute). */
export const ATTR_MCP_RESILIENCE_FALLBACK_SERVER = 'mcp.resilience.fallback.server' as const;
/** On a fallback call's span: the primary server it replaced. Span attribute only. */
export const ATTR_MCP_RESILIENCE_FALLBACK_FROM = 'mcp.resilience.fallback.from' as const;
/** Span event on the active span when a repeat is answered from the negative cache. */
export const EVENT_MCP_RESILIENCE_MODEL_RETRY_AVOIDED = 'mcp.resilience.model_retry_avoided' as const;
/** Span event on the active span when a call goes to a fallback server. */
export const EVENT_MCP_RESILIENCE_FALLBACK = 'mcp.resilience.fallback' as const;
export const PROM_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED_TOTAL =
  'mcp_resilience_model_retries_avoided_total' as const;
export const PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME_SECONDS_TOTAL =
  'mcp_resilience_model_retries_saved_time_seconds_total' as const;
export const PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL =
  'mcp_resilience_model_retries_saved_cost_total' as const;
export const PROM_MCP_RESILIENCE_FALLBACKS_TOTAL = 'mcp_resilience_fallbacks_total' as const;
export const PROM_LABEL_MCP_RESILIENCE_FALLBACK_SERVER = 'mcp_resilience_fallback_server' as const;

// ---------------------------------------------------------------------------------------------------------------
// MCP semantic conventions on attempt spans (issue #14)
// ---------------------------------------------------------------------------------------------------------------

/** The JSON-RPC request id of the attempt (each attempt has its own). Development; source: open-telemetry/semantic-conventions docs/registry/attributes/jsonrpc.md. */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id' as const;
/** `error.type` of an attempt whose `tools/call` result had `isError: true`. Development; source: open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md. */
export const ERROR_TYPE_VALUE_TOOL_ERROR = 'tool_error' as const;

// ---------------------------------------------------------------------------------------------------------------
// Experiments: variants (canary) and the shadow classifier
// ---------------------------------------------------------------------------------------------------------------

/**
 * The variant a call ran on (options `variants` / `split`): on the call and attempt spans, on every call metric
 * (`mcp.resilience.calls`, `.retries`, `.errors`, `.call.duration`, `.retry.wasted_time`, `.retry.wasted_cost`,
 * `mcp.client.operation.duration`, `.shadow.disagreements`, `.model_retries.avoided`, `.model_retries.saved_time`,
 * `.fallbacks`) and on the per-call breaker-gate metrics (`.circuit_breaker.wait.duration`, `.circuit_breaker.shed`:
 * each variant has its own breakers, so its own gate). Deliberately not on the breaker metrics observed per
 * breaker (`.circuit_breaker.state`, `.circuit_breaker.transitions`, `.circuit_breaker.waiting`), which stay per
 * endpoint: the gauges show the worst state and the sum of the waiting calls over the variants' breakers (as for
 * several instances), so the Breakers page keeps one breaker per server. Absent without variants. Metric attribute.
 */
export const ATTR_MCP_RESILIENCE_VARIANT = 'mcp.resilience.variant' as const;
/** The shadow classifier's class and type of a failed attempt (disagreements counter, shadow span event). */
export const ATTR_MCP_RESILIENCE_SHADOW_CLASS = 'mcp.resilience.shadow.class' as const;
export const ATTR_MCP_RESILIENCE_SHADOW_TYPE = 'mcp.resilience.shadow.type' as const;
/** The rule that decided the shadow's verdict (span event only). */
export const ATTR_MCP_RESILIENCE_SHADOW_SOURCE = 'mcp.resilience.shadow.source' as const;
/** Whether the shadow agreed with the acting classifier (same class and type); span event only. */
export const ATTR_MCP_RESILIENCE_SHADOW_AGREES = 'mcp.resilience.shadow.agrees' as const;
/**
 * Counter `{error}`: failed attempts the shadow classified differently (class or type) from the acting
 * classifier; attrs server, method, tool, variant, `mcp.resilience.error.{class,type}` (acting), shadow class/type.
 * Agreements are not counted: per class they are `mcp.resilience.errors` minus the disagreements.
 */
export const METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS = 'mcp.resilience.shadow.disagreements' as const;
/** Span event on a failed attempt's span: the shadow's verdict. */
export const EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION = 'mcp.resilience.shadow.classification' as const;
export const PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL =
  'mcp_resilience_shadow_disagreements_total' as const;
/**
 * The variant's Prometheus label: the standard translation of `mcp.resilience.variant`, kept as is (like every
 * other label here), so the same queries work with or without the project's collector.
 */
export const PROM_LABEL_MCP_RESILIENCE_VARIANT = 'mcp_resilience_variant' as const;
export const PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS = 'mcp_resilience_shadow_class' as const;
export const PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE = 'mcp_resilience_shadow_type' as const;

// ---------------------------------------------------------------------------------------------------------------
// The breaker's gate (issue #11): calls waiting for an open breaker's verdict instead of failing at once
// ---------------------------------------------------------------------------------------------------------------

/** Histogram `s`: how long calls waited at a breaker's gate; attrs `mcp.resilience.server` (+ tool), `mcp.resilience.outcome`, variant. */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION =
  'mcp.resilience.circuit_breaker.wait.duration' as const;
/** ObservableGauge `{call}`: calls waiting at a breaker's gate now; attrs `mcp.resilience.server` (+ tool). */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING =
  'mcp.resilience.circuit_breaker.waiting' as const;
/** Counter `{call}`: calls shed at once because a breaker's wait queue was full; attrs `mcp.resilience.server` (+ tool), variant. */
export const METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED = 'mcp.resilience.circuit_breaker.shed' as const;
/** Call span attribute: milliseconds the call waited at its breaker's gate, in total (set when it waited). */
export const ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS = 'mcp.resilience.circuit_breaker.wait_ms' as const;
/** Call span event, timestamped at the start of a wait at the gate; attrs `mcp.resilience.outcome` and the wait's `wait_ms`. */
export const EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT = 'mcp.resilience.circuit_breaker.wait' as const;
/** `mcp.resilience.outcome` of a wait: released (the attempt went), timeout (deadline or wait limit first), aborted, shed. */
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

// ---------------------------------------------------------------------------------------------------------------
// The fleet (issue #23): endpoint health shared across replicas through a health store (Redis, Valkey)
// ---------------------------------------------------------------------------------------------------------------

/** ObservableGauge `{state}`: 1 while this process's shared health store answers, 0 while it runs on local health. */
export const METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE = 'mcp.resilience.health_store.reachable' as const;
/** Counter `{fallback}`: times the process fell back to its local health because the store failed (down, slow). */
export const METRIC_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS = 'mcp.resilience.health_store.fallbacks' as const;
/** Counter `{read}`: stored data or announcements this version cannot read (another version, garbage): ignored. */
export const METRIC_MCP_RESILIENCE_HEALTH_STORE_UNREADABLE =
  'mcp.resilience.health_store.unreadable' as const;
/** Counter `{decision}`: what this replica decided from the fleet's health; attrs `mcp.resilience.server` (+ tool), the decision. */
export const METRIC_MCP_RESILIENCE_FLEET_DECISIONS = 'mcp.resilience.fleet.decisions' as const;
/** Histogram `s`: from another replica's verdict to its adoption here (announcement or catch-up read; clock skew included). */
export const METRIC_MCP_RESILIENCE_FLEET_SYNC_LAG = 'mcp.resilience.fleet.sync_lag' as const;
/** Attribute of `mcp.resilience.fleet.decisions`: one of `FLEET_DECISION_VALUES`. */
export const ATTR_MCP_RESILIENCE_FLEET_DECISION = 'mcp.resilience.fleet.decision' as const;
export const FLEET_DECISION_VALUES = [
  'adopted_open',
  'adopted_closed',
  'adopted_hold',
  'probe_owned',
  'probe_elsewhere',
] as const;
/** `mcp.resilience.circuit_breaker.reason` of transitions adopted from the fleet. */
export const CIRCUIT_BREAKER_REASON_FLEET_OPEN = 'fleet_open' as const;
export const CIRCUIT_BREAKER_REASON_FLEET_CLOSED = 'fleet_closed' as const;
/** `mcp.resilience.circuit_breaker.reason` of a breaker opened by the fleet's failures in a row (its verdict, shared). */
export const CIRCUIT_BREAKER_REASON_SHARED_FAILURES = 'shared_failures' as const;
/** `mcp.resilience.classification.source` of a call refused by a breaker whose verdict came from the fleet. */
export const CLASSIFICATION_SOURCE_FLEET = 'circuit_breaker.fleet' as const;
export const UNIT_FALLBACK = '{fallback}' as const;
export const UNIT_READ = '{read}' as const;
export const UNIT_DECISION = '{decision}' as const;
/** Explicit bucket boundaries of the sync lag histogram, in seconds (1 ms .. 10 s). */
export const MCP_RESILIENCE_FLEET_SYNC_LAG_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
export const PROM_MCP_RESILIENCE_HEALTH_STORE_REACHABLE = 'mcp_resilience_health_store_reachable' as const;
export const PROM_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS_TOTAL =
  'mcp_resilience_health_store_fallbacks_total' as const;
export const PROM_MCP_RESILIENCE_HEALTH_STORE_UNREADABLE_TOTAL =
  'mcp_resilience_health_store_unreadable_total' as const;
export const PROM_MCP_RESILIENCE_FLEET_DECISIONS_TOTAL = 'mcp_resilience_fleet_decisions_total' as const;
export const PROM_MCP_RESILIENCE_FLEET_SYNC_LAG_SECONDS_BUCKET =
  'mcp_resilience_fleet_sync_lag_seconds_bucket' as const;
export const PROM_LABEL_MCP_RESILIENCE_FLEET_DECISION = 'mcp_resilience_fleet_decision' as const;
