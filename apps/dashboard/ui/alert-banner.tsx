import { PROM_LABEL_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';
import Link from 'next/link';
import type { AlertInstance } from '@/lib/alerts/alert-store';
import { fmtAgo } from '@/ui/time';

const SERVER = PROM_LABEL_MCP_RESILIENCE_SERVER;

/** Shown on every page while an alert fires (built-in rule or Alertmanager). */
export default function AlertBanner({ alerts }: { alerts: AlertInstance[] }) {
  if (alerts.length === 0) return null;
  return (
    <div className="banner" role="alert" data-testid="alert-banner">
      <strong>
        {alerts.length} alert{alerts.length === 1 ? '' : 's'} firing
      </strong>
      <Link href="/alerts">see alerts</Link>
      <ul>
        {alerts.slice(0, 5).map((a) => (
          <li key={a.key}>
            <b>{a.name}</b>
            {a.labels[SERVER] ? ` (${a.labels[SERVER]})` : ''}: {a.summary}{' '}
            <span className="muted">since {fmtAgo(a.firedAt ?? a.updated)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
