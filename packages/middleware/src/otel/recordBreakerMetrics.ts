import type { BreakerTransitionEvent, BreakerWaitFinishedEvent } from '../record/ResilienceEvent.js';
import { breakerMetricAttributes, stateValue, withVariant } from './attributes.js';
import type { BreakerInstruments } from './metricInstruments.js';
import {
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  OTHER_VALUE,
  WAIT_OUTCOME_VALUES,
} from './semconv.js';

/** A wait at a breaker's gate: its duration by outcome, and a shed call. */
export function recordBreakerWait(m: BreakerInstruments, event: BreakerWaitFinishedEvent): void {
  // Per breaker, plus the call's variant: each variant has its own breakers, so its own gate.
  const attributes = breakerMetricAttributes(event.endpoint, event.endpointAttributes ?? {});
  withVariant(attributes, event.attributes ?? {});
  const outcome = (WAIT_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
    ? event.outcome
    : OTHER_VALUE;
  m.waitDuration.record(Math.max(0, event.durationMs) / 1000, {
    ...attributes,
    [ATTR_MCP_RESILIENCE_OUTCOME]: outcome,
  });
  if (outcome === 'shed') m.shed.add(1, attributes);
}

/** A breaker state change. */
export function recordBreakerTransition(m: BreakerInstruments, event: BreakerTransitionEvent): void {
  m.transitions.add(1, {
    ...breakerMetricAttributes(event.endpoint, event.attributes),
    [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: stateValue(event.from),
    [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: stateValue(event.to),
  });
}
