import type { DiagLogger } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export type Signal = 'traces' | 'metrics' | 'other';

/**
 * Tracks whether exports fail, so that an unreachable collector is reported once per outage (not once per
 * export, every few seconds, from every signal), and its recovery once.
 */
export interface ExportHealth {
  failed(signal: Signal, detail: unknown): void;
  succeeded(signal: Exclude<Signal, 'other'>): void;
  /** Whether a diagnostic message is about a failing export (it is then handed to `failed`, not logged). */
  isExportFailure(text: string): boolean;
  readonly failing: boolean;
  /** Whether an export ever succeeded. */
  readonly everSucceeded: boolean;
  /** From now on, exports are dropped without being attempted (shutdown, with an endpoint that refuses connections). */
  dropExports(): void;
  readonly dropping: boolean;
}

const EXPORT_FAILURE =
  /\bexport\w*\b[^\n]*\b(fail\w*|timed out|timeout|error|not retrying)\b|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|socket hang up|fetch failed/i;

/** A short, single-line description of an export error. */
export function describeExportError(detail: unknown): string {
  let text: string;
  if (detail instanceof Error) {
    const code = (detail as { code?: unknown }).code;
    text =
      typeof code === 'string' && !detail.message.includes(code)
        ? `${code}: ${detail.message}`
        : detail.message;
  } else if (typeof detail === 'string') {
    text = detail;
  } else {
    try {
      text = JSON.stringify(detail) ?? String(detail);
    } catch {
      text = String(detail);
    }
  }
  // The SDK's error handler logs errors as JSON: keep their message.
  const json = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  if (json?.[1]) text = json[1];
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

export function createExportHealth(
  endpoint: string,
  warn: (message: string) => void,
  info: (message: string) => void,
): ExportHealth {
  const failing = new Set<Signal>();
  let everSucceeded = false;
  let dropping = false;
  return {
    get failing() {
      return failing.size > 0;
    },
    get everSucceeded() {
      return everSucceeded;
    },
    get dropping() {
      return dropping;
    },
    dropExports() {
      dropping = true;
    },
    failed(signal, detail) {
      const wasFailing = failing.size > 0;
      failing.add(signal);
      if (wasFailing) return;
      warn(
        `@mcp-resilience/telemetry: OTLP export to ${endpoint} is failing (${describeExportError(detail)}); telemetry is dropped ` +
          'until it recovers. Further export errors are not logged.',
      );
    },
    succeeded(signal) {
      everSucceeded = true;
      if (failing.size === 0) return;
      failing.delete(signal);
      failing.delete('other');
      if (failing.size === 0) info(`@mcp-resilience/telemetry: OTLP export to ${endpoint} recovered.`);
    },
    isExportFailure: (text) => EXPORT_FAILURE.test(text),
  };
}

const signalOf = (text: string): Signal =>
  /metric/i.test(text) ? 'metrics' : /span|trace/i.test(text) ? 'traces' : 'other';

const stringify = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/** Seen messages remembered at most; beyond, the memory starts over. */
const MAX_SEEN = 1_000;

/**
 * A diag logger that reports export failures through `health` (once per outage) and logs every other error,
 * warning and info message once (messages differing only in numbers count as the same). Debug and verbose
 * messages pass through.
 */
export function createDedupingDiagLogger(target: DiagLogger, health: ExportHealth): DiagLogger {
  const seen = new Set<string>();
  const dedupe =
    (level: 'error' | 'warn' | 'info') =>
    (message: string, ...args: unknown[]) => {
      const text = [message, ...args.map(stringify)].join(' ');
      if (health.isExportFailure(text)) {
        health.failed(signalOf(text), args.find((a) => a instanceof Error) ?? text);
        return;
      }
      const key = `${level}:${String(message).replace(/\d+/g, '#')}`;
      if (seen.has(key)) return;
      if (seen.size >= MAX_SEEN) seen.clear();
      seen.add(key);
      target[level](message, ...args);
    };
  return {
    error: dedupe('error'),
    warn: dedupe('warn'),
    info: dedupe('info'),
    debug: (message, ...args) => target.debug(message, ...args),
    verbose: (message, ...args) => target.verbose(message, ...args),
  };
}

const watch =
  (signal: 'traces' | 'metrics', health: ExportHealth, done: (result: ExportResult) => void) =>
  (result: ExportResult) => {
    try {
      if (result.code === ExportResultCode.SUCCESS) health.succeeded(signal);
      else health.failed(signal, result.error ?? `${signal} export failed`);
    } finally {
      done(result);
    }
  };

const DROPPED: ExportResult = {
  code: ExportResultCode.FAILED,
  error: new Error('dropped: the OTLP endpoint refused connections at shutdown'),
};

/** Reports the exporter's results to `health`; once `health.dropping`, fails exports without attempting them. */
export function watchSpanExporter(exporter: SpanExporter, health: ExportHealth): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
      health.dropping ? done(DROPPED) : exporter.export(spans, watch('traces', health, done)),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * Reports the exporter's results to `health`, keeping its temporality and aggregation preferences; once
 * `health.dropping`, fails exports without attempting them.
 */
export function watchMetricExporter(exporter: PushMetricExporter, health: ExportHealth): PushMetricExporter {
  const watched: PushMetricExporter = {
    export: (metrics: ResourceMetrics, done: (result: ExportResult) => void) =>
      health.dropping ? done(DROPPED) : exporter.export(metrics, watch('metrics', health, done)),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  if (exporter.selectAggregationTemporality) {
    watched.selectAggregationTemporality = exporter.selectAggregationTemporality.bind(exporter);
  }
  if (exporter.selectAggregation) watched.selectAggregation = exporter.selectAggregation.bind(exporter);
  return watched;
}
