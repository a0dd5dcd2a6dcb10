import type {
  AttemptFinishedEvent,
  CallFinishedEvent,
  ShadowClassifiedEvent,
} from '../record/ResilienceEvent.js';
import {
  callMetricAttributes,
  errorAttributes,
  errorClassValue,
  errorTypeValue,
  operationMetricAttributes,
  semconvErrorType,
} from './attributes.js';
import type { CallInstruments } from './metricInstruments.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  CALL_OUTCOME_VALUES,
  OTHER_VALUE,
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_SUCCESS,
} from './semconv.js';

/**
 * One attempt: `mcp.client.operation.duration` (MCP conventions), a retry (attempts 2..N, with the classifier's
 * type of the failure that triggered it: `retriedType`) and, when it failed, an error. Returns the classifier's
 * type of the failure, for the next retry; undefined on success.
 */
export function recordAttempt(
  m: CallInstruments,
  event: AttemptFinishedEvent,
  annotated: Readonly<Record<string, string>>,
  retriedType: string | undefined,
): string | undefined {
  const failed = event.outcome !== 'success';
  const operation = operationMetricAttributes(event);
  const version = annotated[ATTR_MCP_PROTOCOL_VERSION];
  if (version !== undefined) operation[ATTR_MCP_PROTOCOL_VERSION] = version;
  // `error.type` in its OTel meaning (the JSON-RPC code, `tool_error`) when the edge knows it.
  const errorType = failed ? semconvErrorType(annotated, event.classification) : annotated[ATTR_ERROR_TYPE];
  if (errorType !== undefined) operation[ATTR_ERROR_TYPE] = errorType;
  m.operationDuration.record(Math.max(0, event.durationMs) / 1000, operation);
  const base = callMetricAttributes(event);
  if (event.attempt >= 2) {
    m.retries.add(1, {
      ...base,
      [ATTR_MCP_RESILIENCE_OUTCOME]: failed ? OUTCOME_VALUE_FAILURE : OUTCOME_VALUE_SUCCESS,
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: retriedType ?? OTHER_VALUE,
    });
  }
  if (!failed) return undefined;
  m.errors.add(1, { ...base, ...errorAttributes(event.classification) });
  return errorTypeValue(event.classification?.type);
}

/** One logical call: how it ended, how long it took, and the time (and cost) its failed retries wasted. */
export function recordCall(
  m: CallInstruments,
  event: CallFinishedEvent,
  costPerAttempt: number | undefined,
): void {
  const base = callMetricAttributes(event);
  const outcome = (CALL_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
    ? event.outcome
    : OTHER_VALUE;
  const ended = { ...base, [ATTR_MCP_RESILIENCE_OUTCOME]: outcome };
  const success = outcome === OUTCOME_VALUE_SUCCESS;
  m.calls.add(1, success ? ended : { ...ended, ...errorAttributes(event.classification) });
  m.callDuration.record(
    Math.max(0, event.durationMs) / 1000,
    success
      ? ended
      : { ...ended, [ATTR_MCP_RESILIENCE_ERROR_CLASS]: errorClassValue(event.classification?.class) },
  );
  m.wastedTime.add(Math.max(0, event.wastedTimeMs) / 1000, base);
  if (m.wastedCost && costPerAttempt !== undefined) {
    m.wastedCost.add(Math.max(0, event.wastedRetries) * costPerAttempt, base);
  }
}

/** A failed attempt the shadow classifier classified differently (agreements are not counted). */
export function recordShadow(m: CallInstruments, event: ShadowClassifiedEvent): void {
  if (event.agrees) return;
  m.shadowDisagreements.add(1, {
    ...callMetricAttributes(event),
    ...errorAttributes(event.classification),
    [ATTR_MCP_RESILIENCE_SHADOW_CLASS]: errorClassValue(event.shadow?.class),
    [ATTR_MCP_RESILIENCE_SHADOW_TYPE]: errorTypeValue(event.shadow?.type),
  });
}
