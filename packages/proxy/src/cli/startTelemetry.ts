import type { Recorder } from '@mcp-resilience/middleware';

/** The proxy's telemetry: a recorder for the resilience layer and a flush for the way out. */
export interface ProxyTelemetry {
  readonly recorder?: Recorder;
  shutdown(): Promise<void>;
}

const ENDPOINTS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];

/**
 * Starts the OpenTelemetry SDK (OTLP/HTTP, the standard `OTEL_*` variables) when an OTLP endpoint is set and
 * `OTEL_SDK_DISABLED` is not `true`; otherwise nothing is exported. Its diagnostics go to stderr: stdout carries
 * only MCP.
 */
export async function startTelemetry(
  serviceName: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ProxyTelemetry> {
  const enabled = ENDPOINTS.some((name) => (env[name] ?? '') !== '') && env.OTEL_SDK_DISABLED !== 'true';
  if (!enabled) return { shutdown: async () => {} };
  // Loaded only when used: the OpenTelemetry SDK is most of the proxy's memory.
  const { setupTelemetry } = await import('@mcp-resilience/telemetry');
  const telemetry = setupTelemetry({
    serviceName: serviceName ?? env.OTEL_SERVICE_NAME ?? 'mcp-resilience',
    diagLogger: stderrLogger,
  });
  return { recorder: telemetry.recorder, shutdown: () => telemetry.shutdown() };
}

const write =
  (level: string) =>
  (message: string, ...args: unknown[]) => {
    process.stderr.write(`mcp-resilience otel ${level}: ${[message, ...args.map(String)].join(' ')}\n`);
  };

const stderrLogger = {
  error: write('error'),
  warn: write('warn'),
  info: write('info'),
  debug: write('debug'),
  verbose: write('verbose'),
};
