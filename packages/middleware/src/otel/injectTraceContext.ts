import { context, isSpanContextValid, propagation, type Span, trace } from '@opentelemetry/api';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';

/**
 * Writes `span`'s trace context into `carrier` with the global propagator. When that propagator wrote no
 * `traceparent` (none registered, or one without W3C trace context), writes the W3C `traceparent` (and
 * `tracestate`) itself, so that an MCP server can join the trace whenever the span context is valid.
 */
export function injectTraceContext(span: Span, carrier: Record<string, string>): void {
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  if (carrier[TRACEPARENT] !== undefined) return;
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  carrier[TRACEPARENT] = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const state = spanContext.traceState?.serialize();
  if (state) carrier[TRACESTATE] = state;
}
