import { unknownOption } from '@mcp-resilience/middleware';
import type { OtelRecorderOptions } from '@mcp-resilience/middleware/otel';
import type { DiagLogger } from '@opentelemetry/api';

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];

/**
 * Options of `setupTelemetry`. Flat and all optional. An option given here wins over the standard `OTEL_*`
 * environment variable for the same setting; an unset option leaves the SDK and exporters to read the
 * environment; the defaults apply last.
 */
export interface TelemetryOptions {
  /** `service.name`. Default: `OTEL_SERVICE_NAME`, else the SDK's `unknown_service:node`. */
  readonly serviceName?: string;
  /**
   * Base URL of the OTLP/HTTP receiver (a collector, or the dashboard): `/v1/traces` and `/v1/metrics` are
   * appended. Default: `OTEL_EXPORTER_OTLP_ENDPOINT` (and the per-signal variables), else `http://localhost:4318`.
   */
  readonly endpoint?: string;
  /** Default: `OTEL_EXPORTER_OTLP_PROTOCOL` (and per-signal variables), else `http/protobuf`. */
  readonly protocol?: OtlpProtocol;
  /** How often metrics are exported. Default: `OTEL_METRIC_EXPORT_INTERVAL`, else 5 000 ms. */
  readonly metricExportIntervalMs?: number;
  /** Time limit of one export, retries included. Default: `OTEL_EXPORTER_OTLP_TIMEOUT`, else 10 000 ms. */
  readonly exportTimeoutMs?: number;
  /**
   * Resource attributes, over those of `OTEL_RESOURCE_ATTRIBUTES`. `service.instance.id` defaults to a random
   * UUID per process unless given here or in the environment.
   */
  readonly resourceAttributes?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Where OpenTelemetry's own diagnostics go (exporter failures...), de-duplicated: an unreachable collector is
   * reported once per outage. Default: the console, at `OTEL_LOG_LEVEL` (default `warn`). `null`: leave the
   * diag logger alone.
   */
  readonly diagLogger?: DiagLogger | null;
  /** Options of the `recorder` returned (message capture, redaction, cost per attempt). */
  readonly recorderOptions?: Omit<OtelRecorderOptions, 'tracerProvider' | 'meterProvider'>;
}

export interface ResolvedTelemetryOptions {
  readonly serviceName: string | undefined;
  readonly endpoint: string | undefined;
  readonly protocol: OtlpProtocol | undefined;
  readonly metricExportIntervalMs: number | undefined;
  readonly exportTimeoutMs: number | undefined;
  readonly resourceAttributes: Readonly<Record<string, string | number | boolean>>;
  readonly diagLogger: DiagLogger | null | undefined;
  readonly recorderOptions: Omit<OtelRecorderOptions, 'tracerProvider' | 'meterProvider'>;
}

/** Defaults used when neither the option nor its environment variable is set. */
export const telemetryDefaults = Object.freeze({
  endpoint: 'http://localhost:4318',
  protocol: 'http/protobuf' as OtlpProtocol,
  metricExportIntervalMs: 5_000,
  metricExportTimeoutMs: 30_000,
  /** At shutdown, when no export succeeded yet or exports are failing: the time a TCP connect to the endpoint has. */
  shutdownProbeTimeoutMs: 1_000,
});

type Check = (value: unknown) => string | undefined;

const positive: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? undefined : 'a number > 0';
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const checks: { readonly [K in keyof TelemetryOptions]-?: Check } = {
  serviceName: (v) => (typeof v === 'string' && v !== '' ? undefined : 'a non-empty string'),
  endpoint: (v) => {
    if (typeof v !== 'string') return 'an http(s) URL';
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'an http(s) URL';
    } catch {
      return 'an http(s) URL';
    }
  },
  protocol: (v) =>
    OTLP_PROTOCOLS.includes(v as OtlpProtocol)
      ? undefined
      : `one of ${OTLP_PROTOCOLS.map((p) => `'${p}'`).join(', ')}`,
  metricExportIntervalMs: positive,
  exportTimeoutMs: positive,
  resourceAttributes: (v) =>
    isObject(v) && Object.values(v).every((x) => ['string', 'number', 'boolean'].includes(typeof x))
      ? undefined
      : 'an object of strings, numbers and booleans',
  diagLogger: (v) =>
    v === null ||
    (isObject(v) && ['error', 'warn', 'info', 'debug', 'verbose'].every((m) => typeof v[m] === 'function'))
      ? undefined
      : 'a DiagLogger (error, warn, info, debug, verbose) or null',
  recorderOptions: (v) => (isObject(v) ? undefined : 'an object'),
};

const show = (v: unknown): string => {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'function') return 'a function';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/** Validates `options`; throws a `TypeError` naming the first bad option and what is allowed. */
export function resolveTelemetryOptions(options: TelemetryOptions = {}): ResolvedTelemetryOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`setupTelemetry: options must be an object, got ${show(options)}`);
  }
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = checks[key as keyof TelemetryOptions];
    if (!check) throw unknownOption('setupTelemetry', key, { names: Object.keys(checks) });
    const allowed = check(value);
    if (allowed)
      throw new TypeError(`setupTelemetry: option '${key}' must be ${allowed}, got ${show(value)}`);
  }
  return {
    serviceName: options.serviceName,
    endpoint: options.endpoint?.replace(/\/+$/, ''),
    protocol: options.protocol,
    metricExportIntervalMs: options.metricExportIntervalMs,
    exportTimeoutMs: options.exportTimeoutMs,
    resourceAttributes: options.resourceAttributes ?? {},
    diagLogger: options.diagLogger,
    recorderOptions: options.recorderOptions ?? {},
  };
}
