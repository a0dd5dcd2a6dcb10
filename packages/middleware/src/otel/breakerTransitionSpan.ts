import { type Attributes, SpanKind, type Tracer } from '@opentelemetry/api';
import type { BreakerTransitionEvent } from '../record/ResilienceEvent.js';
import { breakerMetricAttributes, stateValue } from './attributes.js';
import type { CallSpan } from './CallSpans.js';
import {
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_ENDPOINT,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
} from './semconv.js';
import { toHrTime } from './toHrTime.js';

/**
 * A breaker transition as a span event: on the call span that caused it, else (outside any open call, a
 * timer-driven open → half_open) on a short root span of its own, so that it is exported.
 */
export function breakerTransitionSpan(
  tracer: Tracer,
  call: CallSpan | undefined,
  event: BreakerTransitionEvent,
): void {
  const attributes: Attributes = {
    ...breakerMetricAttributes(event.endpoint, event.attributes),
    [ATTR_MCP_RESILIENCE_ENDPOINT]: event.endpoint,
    [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: stateValue(event.from),
    [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: stateValue(event.to),
    [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON]: String(event.reason),
  };
  const time = toHrTime(event.time);
  if (call) {
    call.span.addEvent(EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, attributes, time);
    return;
  }
  // Root: a breaker timer runs in the async context of the call that opened the breaker, long finished.
  const span = tracer.startSpan(SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, {
    kind: SpanKind.INTERNAL,
    startTime: time,
    attributes,
    root: true,
  });
  span.addEvent(EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, attributes, time);
  span.end(time);
}
