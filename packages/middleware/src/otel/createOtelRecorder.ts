import { diag } from '@opentelemetry/api';
import type { Recorder } from '../record/Recorder.js';
import { MetricRecorder } from './MetricRecorder.js';
import { type OtelRecorderOptions, resolveOtelRecorderOptions } from './OtelRecorderOptions.js';
import { SpanRecorder } from './SpanRecorder.js';

const PREFIX = '@mcp-resilience/middleware/otel:';

/**
 * A `Recorder` that turns resilience events into OpenTelemetry spans, span events and metrics (design §4):
 * a call span per logical call, a child attempt span per attempt (named per the MCP conventions, its W3C trace
 * context injected into the attempt's `traceContext`), classification and breaker-transition events, and the
 * `mcp.resilience.*` and `mcp.client.operation.duration` metrics.
 *
 * Uses the global tracer and meter providers unless given. Telemetry never breaks or slows a call: recording is
 * synchronous, awaits nothing, and any error (a throwing provider, tracer, meter or exporter) is contained and
 * reported once through `diag.warn`.
 *
 * @example
 * const resilience = createResilience({ recorder: createOtelRecorder() });
 */
export function createOtelRecorder(options?: OtelRecorderOptions): Recorder {
  const o = resolveOtelRecorderOptions(options);

  let warned = false;
  const report = (error: unknown) => {
    if (warned) return;
    warned = true;
    try {
      diag.warn(
        `${PREFIX} recording telemetry failed; the call is unaffected. Further errors are not reported.`,
        error,
      );
    } catch {
      // a throwing diag logger must not escape either
    }
  };
  let capWarned = false;
  const onCapReached = () => {
    if (capWarned) return;
    capWarned = true;
    try {
      diag.warn(
        `${PREFIX} more than maxOpenCalls (${o.maxOpenCalls}) calls open at once; the oldest calls' spans were ended early.`,
      );
    } catch {
      // ignore
    }
  };

  const spans = new SpanRecorder(o, onCapReached);
  const metrics = new MetricRecorder(o, report, onCapReached);

  return {
    record(event) {
      try {
        spans.record(event);
      } catch (error) {
        report(error);
      }
      try {
        metrics.record(event);
      } catch (error) {
        report(error);
      }
    },
  };
}
