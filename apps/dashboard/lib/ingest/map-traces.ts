import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_OPERATION,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_SHADOW_AGREES,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  ATTR_MCP_RESILIENCE_VARIANT,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION,
  OUTCOME_VALUE_SUCCESS,
  SPAN_MCP_RESILIENCE_CALL,
} from '@mcp-resilience/middleware/semconv';
import type { Span, TracesRequest } from '../otlp/model';
import { type IngestContext, resourceIdentity, text } from './ingest-context';
import type {
  AttemptRecord,
  BreakerObservation,
  CallRecord,
  InstanceSeen,
  ShadowExampleRecord,
  TraceBatch,
} from './records';
import { Rejections, shown } from './rejections';
import { timeRefusal } from './time-bounds';

/** A finite, non-negative number (a count, a duration); anything else is 0. */
const count = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : 0;
  return Number.isFinite(n) && n > 0 ? n : 0;
};

function callRecord(
  service: string,
  instance: string,
  span: Span,
  ctx: IngestContext,
): CallRecord | undefined {
  const a = span.attributes;
  const outcome = text(a[ATTR_MCP_RESILIENCE_OUTCOME]);
  const attempts = count(a[ATTR_MCP_RESILIENCE_ATTEMPTS]);
  if (outcome === OUTCOME_VALUE_SUCCESS && attempts <= 1) return undefined;
  const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes;
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    service,
    instance,
    server: ctx.label('server', text(a[ATTR_MCP_RESILIENCE_SERVER])),
    method: ctx.label('method', text(a[ATTR_MCP_METHOD_NAME])),
    tool: ctx.label('tool', text(a[ATTR_GEN_AI_TOOL_NAME])),
    operation: text(a[ATTR_MCP_RESILIENCE_OPERATION]),
    variant: ctx.label('variant', text(a[ATTR_MCP_RESILIENCE_VARIANT])),
    startMs: span.startMs,
    durationMs: Math.max(0, span.endMs - span.startMs),
    outcome: ctx.label('outcome', outcome || 'unknown'),
    attempts,
    errorClass: ctx.label(
      'error_class',
      text(a[ATTR_MCP_RESILIENCE_ERROR_CLASS] ?? c?.[ATTR_MCP_RESILIENCE_ERROR_CLASS]),
    ),
    errorType: ctx.label(
      'error_type',
      text(a[ATTR_MCP_RESILIENCE_ERROR_TYPE] ?? c?.[ATTR_MCP_RESILIENCE_ERROR_TYPE]),
    ),
    wastedRetries: count(a[ATTR_MCP_RESILIENCE_WASTED_RETRIES]),
    wastedTimeMs: count(a[ATTR_MCP_RESILIENCE_WASTED_TIME_MS]),
    message: span.statusMessage,
  };
}

function attemptRecord(span: Span, ctx: IngestContext): AttemptRecord | undefined {
  const a = span.attributes;
  const attempt = count(a[ATTR_MCP_RESILIENCE_ATTEMPT]);
  const ok = span.statusCode !== 2;
  if (ok && attempt <= 1) return undefined;
  const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes ?? {};
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    attempt,
    startMs: span.startMs,
    durationMs: Math.max(0, span.endMs - span.startMs),
    ok,
    errorClass: ctx.label(
      'error_class',
      text(c[ATTR_MCP_RESILIENCE_ERROR_CLASS] ?? a[ATTR_MCP_RESILIENCE_ERROR_CLASS]),
    ),
    errorType: ctx.label(
      'error_type',
      text(c[ATTR_MCP_RESILIENCE_ERROR_TYPE] ?? a[ATTR_MCP_RESILIENCE_ERROR_TYPE]),
    ),
    decision: text(c[ATTR_MCP_RESILIENCE_DECISION]),
    delayMs: count(c[ATTR_MCP_RESILIENCE_DELAY_MS]),
    giveUpReason: text(c[ATTR_MCP_RESILIENCE_GIVE_UP_REASON]),
    execution: text(c[ATTR_MCP_RESILIENCE_EXECUTION]),
    source: text(c[ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE]),
    message: text(c[ATTR_MCP_RESILIENCE_ERROR_MESSAGE]) || (ok ? '' : span.statusMessage),
  };
}

/** The example an attempt span makes when the shadow classifier disagreed on it, else undefined. */
function shadowExampleOf(service: string, span: Span): ShadowExampleRecord | undefined {
  const shadow = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION)?.attributes;
  if (shadow === undefined || shadow[ATTR_MCP_RESILIENCE_SHADOW_AGREES] !== false) return undefined;
  const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes ?? {};
  const a = span.attributes;
  return {
    ts: span.startMs,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    service,
    server: text(a[ATTR_MCP_RESILIENCE_SERVER]),
    tool: text(a[ATTR_GEN_AI_TOOL_NAME]),
    variant: text(a[ATTR_MCP_RESILIENCE_VARIANT]),
    errorClass: text(c[ATTR_MCP_RESILIENCE_ERROR_CLASS] ?? a[ATTR_MCP_RESILIENCE_ERROR_CLASS]),
    errorType: text(c[ATTR_MCP_RESILIENCE_ERROR_TYPE] ?? a[ATTR_MCP_RESILIENCE_ERROR_TYPE]),
    shadowClass: text(shadow[ATTR_MCP_RESILIENCE_SHADOW_CLASS]),
    shadowType: text(shadow[ATTR_MCP_RESILIENCE_SHADOW_TYPE]),
  };
}

/**
 * Maps an OTLP traces request to breaker transitions (span events), failed/retried calls (call spans) and
 * their attempts (attempt spans). A span whose start, end or events fall outside the time bounds is refused
 * whole, with the reason (OTLP partial success).
 */
export function mapTraces(request: TracesRequest, ctx: IngestContext): TraceBatch {
  const rejections = new Rejections();
  const instances: InstanceSeen[] = [];
  const breakers: BreakerObservation[] = [];
  const calls: CallRecord[] = [];
  const attempts: AttemptRecord[] = [];
  const shadowExamples: ShadowExampleRecord[] = [];
  for (const rs of request.resources) {
    const { service, instance } = resourceIdentity(rs.resource, ctx);
    if (rs.scopes.some((ss) => ss.spans.length > 0)) instances.push({ service, instance });
    for (const ss of rs.scopes) {
      for (const span of ss.spans) {
        const times = [span.startMs, span.endMs, ...span.events.map((e) => e.timeMs)];
        const late = times.some((t) => !(t > 0))
          ? 'start, end or event time missing'
          : times.map((t) => timeRefusal(t, ctx.bounds)).find((r) => r !== undefined);
        if (late) {
          rejections.add(1, `span ${shown(span.name) || span.spanId}: ${late}`);
          continue;
        }
        for (const e of span.events) {
          if (e.name !== EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION) continue;
          const a = e.attributes;
          const state = ctx.label('state', text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]));
          if (state === '') continue;
          breakers.push({
            service,
            instance,
            server: ctx.label('server', text(a[ATTR_MCP_RESILIENCE_SERVER])),
            tool: ctx.label('tool', text(a[ATTR_GEN_AI_TOOL_NAME])),
            state,
            at: e.timeMs,
            transition: {
              from: ctx.label('state', text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE])),
              reason: text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON]),
            },
          });
        }
        if (span.name === SPAN_MCP_RESILIENCE_CALL) {
          const call = callRecord(service, instance, span, ctx);
          if (call) calls.push(call);
        } else if (span.attributes[ATTR_MCP_RESILIENCE_ATTEMPT] !== undefined) {
          const attempt = attemptRecord(span, ctx);
          if (attempt) attempts.push(attempt);
          const example = shadowExampleOf(service, span);
          if (example) shadowExamples.push(example);
        }
      }
    }
  }
  return {
    instances,
    breakers,
    calls,
    attempts,
    shadowExamples,
    spans: request.spans,
    rejected: rejections.result(),
  };
}
