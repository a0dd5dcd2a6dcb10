import { PROM_LABEL_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';
import Link from 'next/link';
import type { AlertInstance } from '@/lib/alerts/alert-store';
import { CANARY_RULE } from '@/lib/alerts/canary-rule';
import { fmtAgo } from '@/ui/time';

const SERVER = PROM_LABEL_MCP_RESILIENCE_SERVER;

/**
 * The Experiments page filtered to the canary alert's server and window: the alert is per server, the page's
 * verdict pooled over servers unless filtered, so the link shows the verdict the alert speaks of.
 */
const experimentsHref = (server: string) =>
  `/experiments?${new URLSearchParams({ range: `${Math.round(CANARY_RULE.windowMs / 3_600_000)}h`, server })}`;

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
            {a.name === CANARY_RULE.name && a.labels[SERVER] ? (
              <>
                {' '}
                <Link href={experimentsHref(a.labels[SERVER])} data-testid="banner-experiments">
                  see on Experiments ({a.labels[SERVER]})
                </Link>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
