import CopyButton from './copy-button';

/**
 * What a new user sees before any agent has sent data: the exact environment line for THIS dashboard (its
 * OTLP/HTTP receiver is on the same port as the pages) and a snippet to copy.
 */
export default function EmptyState({
  baseUrl,
  tokenRequired,
  receivesOtlp,
}: {
  baseUrl: string;
  tokenRequired: boolean;
  receivesOtlp: boolean;
}) {
  if (!receivesOtlp) {
    return (
      <section className="panel" data-testid="empty-state">
        <h2>No data yet</h2>
        <p>
          This dashboard reads Prometheus (<code>DASHBOARD_SOURCE=prometheus</code>): send your agents&apos;
          telemetry to your OpenTelemetry collector, whose <code>prometheus</code> exporter Prometheus
          scrapes.
        </p>
      </section>
    );
  }
  const env = [
    `OTEL_EXPORTER_OTLP_ENDPOINT=${baseUrl}`,
    'OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
    ...(tokenRequired ? ['OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<INGEST_TOKEN>'] : []),
    'OTEL_SERVICE_NAME=my-agent',
  ].join('\n');
  const code = `import { createResilience } from '@mcp-resilience/middleware';
import { setupTelemetry } from '@mcp-resilience/telemetry';

// reads OTEL_EXPORTER_OTLP_ENDPOINT; or pass endpoint: '${baseUrl}'
const telemetry = setupTelemetry({ serviceName: 'my-agent' });
const resilience = createResilience({ recorder: telemetry.recorder });`;
  return (
    <section className="panel" data-testid="empty-state" style={{ marginBottom: 14 }}>
      <h2>No agent has sent data yet: connect one</h2>
      <p>Set these in your agent&apos;s environment (this dashboard receives OTLP/HTTP on this address):</p>
      <div className="snippet" data-testid="otlp-env">
        {env}
        <CopyButton text={env} />
      </div>
      <p>and record resilience telemetry with it:</p>
      <div className="snippet" data-testid="otlp-snippet">
        {code}
        <CopyButton text={code} />
      </div>
      <p className="muted">
        Metrics arrive every 5 s (the telemetry package&apos;s export interval); then this page fills in.
      </p>
    </section>
  );
}
