import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { boolean, type Check, checkOptions, hasMethods, integer } from '../checkOptions.js';

/** Options of `createOtelRecorder`. Flat and all optional; `otelRecorderDefaults` holds every default. */
export interface OtelRecorderOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`), looked up lazily. */
  readonly tracerProvider?: TracerProvider;
  /**
   * Where metrics go. Default: the global meter provider (`metrics.getMeterProvider()`), followed if it is
   * registered after the recorder was created.
   */
  readonly meterProvider?: MeterProvider;
  /** Put the failure's message (redacted, length-capped) on the classification event and the span status. */
  readonly captureMessages?: boolean;
  /** Longest message kept, in characters (after redaction; a cut message ends with `…`). */
  readonly messageMaxLength?: number;
  /**
   * A cost you assign to one attempt (tokens, cents...). When set, failed retries × this cost is counted in
   * `mcp.resilience.retry.wasted_cost`. Undefined: no cost metric.
   */
  readonly costPerAttempt?: number;
  /** Extra patterns masked in messages, after the built-in ones (bearer tokens, API keys, URL passwords...). */
  readonly redact?: readonly RegExp[];
  /**
   * Calls tracked at once (open spans). Beyond, the oldest open call's spans are ended, so that a call that
   * never finishes cannot grow memory forever.
   */
  readonly maxOpenCalls?: number;
}

export interface ResolvedOtelRecorderOptions {
  readonly tracerProvider: TracerProvider | undefined;
  readonly meterProvider: MeterProvider | undefined;
  readonly captureMessages: boolean;
  readonly messageMaxLength: number;
  readonly costPerAttempt: number | undefined;
  readonly redact: readonly RegExp[];
  readonly maxOpenCalls: number;
}

export const otelRecorderDefaults: ResolvedOtelRecorderOptions = Object.freeze({
  tracerProvider: undefined,
  meterProvider: undefined,
  captureMessages: true,
  messageMaxLength: 256,
  costPerAttempt: undefined,
  redact: [],
  maxOpenCalls: 10_000,
});

const checks: { readonly [K in keyof OtelRecorderOptions]-?: Check } = {
  tracerProvider: hasMethods('getTracer'),
  meterProvider: hasMethods('getMeter'),
  captureMessages: boolean,
  messageMaxLength: integer(1),
  costPerAttempt: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 ? undefined : 'a finite number >= 0',
  redact: (v) => (Array.isArray(v) && v.every((p) => p instanceof RegExp) ? undefined : 'an array of RegExp'),
  maxOpenCalls: integer(1),
};

/** Merges `options` over the defaults; throws a `TypeError` naming the first bad option and what is allowed. */
export function resolveOtelRecorderOptions(options: OtelRecorderOptions = {}): ResolvedOtelRecorderOptions {
  checkOptions('createOtelRecorder', options, checks);
  const resolved: Record<string, unknown> = { ...otelRecorderDefaults };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) resolved[key] = value;
  return resolved as unknown as ResolvedOtelRecorderOptions;
}
