import { randomUUID } from 'node:crypto';
import type { Recorder } from '@mcp-resilience/middleware';
import { createOtelRecorder } from '@mcp-resilience/middleware/otel';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@mcp-resilience/middleware/semconv';
import {
  context,
  DiagConsoleLogger,
  DiagLogLevel,
  diag,
  logs,
  type MeterProvider,
  metrics,
  propagation,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { diagLogLevelFromString, getNumberFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { OTLPMetricExporter as OTLPJsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import {
  createDedupingDiagLogger,
  createExportHealth,
  watchMetricExporter,
  watchSpanExporter,
} from './exportHealth.js';
import { probeEndpoint } from './probeEndpoint.js';
import {
  OTLP_PROTOCOLS,
  type OtlpProtocol,
  type ResolvedTelemetryOptions,
  resolveTelemetryOptions,
  type TelemetryOptions,
  telemetryDefaults,
} from './TelemetryOptions.js';

export interface Telemetry {
  /** A recorder for `createResilience({ recorder })`, bound to this SDK's providers. */
  readonly recorder: Recorder;
  /** The SDK's providers (also registered as the global ones). */
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Exports everything recorded so far. Never rejects. */
  forceFlush(): Promise<void>;
  /**
   * Flushes, shuts the SDK down and unregisters its global providers, so `setupTelemetry` may run again.
   * Idempotent; never rejects (an unreachable collector is reported through the diag logger).
   */
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;

/**
 * Starts the OpenTelemetry Node SDK for mcp-resilience: OTLP/HTTP trace and metric exporters (protobuf by
 * default, or JSON), batch span processing, metrics every 5 s, a `service.instance.id` per process, no
 * auto-instrumentation. Options win over the standard `OTEL_*` environment variables, which win over the defaults.
 * Exporter failures never reach the application: an unreachable collector is logged once per outage.
 *
 * @example
 * const telemetry = setupTelemetry({ serviceName: 'my-agent' });
 * const resilience = createResilience({ recorder: telemetry.recorder });
 * process.on('SIGTERM', () => void telemetry.shutdown());
 */
export function setupTelemetry(options?: TelemetryOptions): Telemetry {
  const o = resolveTelemetryOptions(options);
  if (active) {
    throw new Error(
      'setupTelemetry: already set up in this process; call shutdown() on the first instance first',
    );
  }

  const endpoint =
    o.endpoint ?? getStringFromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') ?? telemetryDefaults.endpoint;
  const target = o.diagLogger === undefined ? new DiagConsoleLogger() : o.diagLogger;
  const warn = (message: string) => (target ?? diag).warn(message);
  // The endpoint probed at shutdown is the one both exporters use: not when a per-signal variable sends one elsewhere.
  const probeAtShutdown =
    o.endpoint !== undefined ||
    (getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') === undefined &&
      getStringFromEnv('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') === undefined);
  const health = createExportHealth(endpoint, warn, (message) => (target ?? diag).info(message));

  const tracesProtocol = protocolFor('TRACES', o, warn);
  const metricsProtocol = protocolFor('METRICS', o, warn);
  const exportConfig = (signal: 'traces' | 'metrics') => ({
    ...(o.endpoint ? { url: `${o.endpoint}/v1/${signal}` } : {}),
    ...(o.exportTimeoutMs ? { timeoutMillis: o.exportTimeoutMs } : {}),
  });
  const traceExporter: SpanExporter =
    tracesProtocol === 'http/json'
      ? new OTLPJsonTraceExporter(exportConfig('traces'))
      : new OTLPProtoTraceExporter(exportConfig('traces'));
  const metricExporter: PushMetricExporter =
    metricsProtocol === 'http/json'
      ? new OTLPJsonMetricExporter(exportConfig('metrics'))
      : new OTLPProtoMetricExporter(exportConfig('metrics'));

  const interval =
    o.metricExportIntervalMs ??
    positiveEnv('OTEL_METRIC_EXPORT_INTERVAL') ??
    telemetryDefaults.metricExportIntervalMs;
  const metricTimeout = Math.min(
    o.exportTimeoutMs ?? positiveEnv('OTEL_METRIC_EXPORT_TIMEOUT') ?? telemetryDefaults.metricExportTimeoutMs,
    interval,
  );

  const sdk = new NodeSDK({
    resource: buildResource(o),
    autoDetectResources: false, // detected in buildResource, under the options
    traceExporter: watchSpanExporter(traceExporter, health), // → a BatchSpanProcessor (OTEL_BSP_* honoured)
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: watchMetricExporter(metricExporter, health),
        exportIntervalMillis: interval,
        exportTimeoutMillis: metricTimeout,
      }),
    ],
    logRecordProcessors: [], // traces and metrics only
    instrumentations: [],
  });
  // After the SDK's constructor, which installs a console logger of its own when OTEL_LOG_LEVEL is set.
  if (target !== null) {
    const level = diagLogLevelFromString(getStringFromEnv('OTEL_LOG_LEVEL')) ?? DiagLogLevel.WARN;
    diag.setLogger(createDedupingDiagLogger(target, health), {
      logLevel: level,
      suppressOverrideMessage: true,
    });
  }
  const tracerBefore = delegateOf(trace.getTracerProvider());
  const meterBefore = metrics.getMeterProvider();
  const loggerBefore = logs.getLoggerProvider();
  sdk.start();
  // SDK 3 registers a global logger provider even without log processors: traces and metrics only here, so
  // take it back at once (an application's own logs SDK may register later).
  if (logs.getLoggerProvider() !== loggerBefore) logs.disable();
  const tracerProvider = trace.getTracerProvider();
  const meterProvider = metrics.getMeterProvider();
  // Registration fails when another SDK registered first (the SDK logs it): then leave its globals alone.
  const ownsTracing = delegateOf(tracerProvider) !== tracerBefore;
  const ownsMetrics = meterProvider !== meterBefore;
  const recorder = createOtelRecorder({ ...o.recorderOptions, tracerProvider, meterProvider });

  const forceFlush = async () => {
    await Promise.all(
      [delegateOf(tracerProvider), meterProvider].map(async (provider) => {
        try {
          await (provider as { forceFlush?: () => Promise<void> }).forceFlush?.();
        } catch (error) {
          health.failed('other', error);
        }
      }),
    );
  };

  let stopped: Promise<void> | undefined;
  const telemetry: Telemetry = {
    recorder,
    tracerProvider,
    meterProvider,
    forceFlush,
    shutdown() {
      stopped ??= (async () => {
        try {
          if (probeAtShutdown && (health.failing || !health.everSucceeded)) {
            // Nothing listening there: drop the final export now rather than let the exporter retry it (and
            // hold the process) for up to its timeout.
            const refused = await probeEndpoint(endpoint, telemetryDefaults.shutdownProbeTimeoutMs);
            if (refused) {
              health.failed('other', refused);
              health.dropExports();
            }
          }
          await sdk.shutdown();
        } catch (error) {
          health.failed('other', error);
        } finally {
          // Unregister what the SDK registered, so that a later setupTelemetry() can register again.
          if (ownsTracing && trace.getTracerProvider() === tracerProvider) {
            trace.disable();
            propagation.disable();
            context.disable();
          }
          if (ownsMetrics && metrics.getMeterProvider() === meterProvider) metrics.disable();
          if (target !== null) diag.disable();
          if (active === telemetry) active = undefined;
        }
      })();
      return stopped;
    },
  };
  active = telemetry;
  return telemetry;
}

/** The SDK default resource, a random `service.instance.id`, the environment's, the options': later ones win. */
function buildResource(o: ResolvedTelemetryOptions) {
  let resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_INSTANCE_ID]: randomUUID() }))
    .merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }))
    .merge(resourceFromAttributes({ ...o.resourceAttributes }));
  if (o.serviceName !== undefined)
    resource = resource.merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName }));
  return resource;
}

function protocolFor(
  signal: 'TRACES' | 'METRICS',
  o: ResolvedTelemetryOptions,
  warn: (message: string) => void,
): OtlpProtocol {
  if (o.protocol) return o.protocol;
  const fromEnv = (
    getStringFromEnv(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ??
    getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL')
  )?.trim();
  if (!fromEnv) return telemetryDefaults.protocol;
  if ((OTLP_PROTOCOLS as readonly string[]).includes(fromEnv)) return fromEnv as OtlpProtocol;
  warn(
    `@mcp-resilience/telemetry: OTLP protocol '${fromEnv}' is not supported here (use http/protobuf or http/json); using ${telemetryDefaults.protocol}.`,
  );
  return telemetryDefaults.protocol;
}

function positiveEnv(name: string): number | undefined {
  const value = getNumberFromEnv(name);
  return value !== undefined && value > 0 ? value : undefined;
}

/** The SDK provider behind the API's proxy tracer provider. */
function delegateOf(provider: TracerProvider): unknown {
  const proxy = provider as { getDelegate?: () => TracerProvider };
  return typeof proxy.getDelegate === 'function' ? proxy.getDelegate() : provider;
}
