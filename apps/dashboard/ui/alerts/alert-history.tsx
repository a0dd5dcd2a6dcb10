import { PROM_LABEL_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';
import type { AlertHistoryEntry } from '@/lib/alerts/alert-store';
import { fmtAlertValue } from '@/lib/alerts/alert-value';
import LocalTime from '@/ui/local-time';

/**
 * Every change of an alert's state, newest first, with its value and summary as they were at that change (the
 * Alerts list above shows them as of the last evaluation, so the two differ once the numbers move).
 */
export default function AlertHistory({ history }: { history: readonly AlertHistoryEntry[] }) {
  return (
    <section className="panel">
      <h2>History</h2>
      {history.length === 0 ? (
        <div className="empty">Nothing yet.</div>
      ) : (
        <table data-testid="alert-history">
          <thead>
            <tr>
              <th>time</th>
              <th>state</th>
              <th>alert</th>
              <th>server</th>
              <th className="num">value at the change</th>
              <th>summary at the change</th>
              <th>source</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.id}>
                <td>
                  <LocalTime t={h.at} format="datetime" />
                </td>
                <td>
                  <span className={`badge ${h.state}`}>{h.state}</span>
                </td>
                <td>{h.name}</td>
                <td>{h.labels[PROM_LABEL_MCP_RESILIENCE_SERVER] ?? ''}</td>
                <td className="num" data-testid="history-value">
                  {fmtAlertValue(h)}
                </td>
                <td className="muted">{h.summary}</td>
                <td>{h.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
