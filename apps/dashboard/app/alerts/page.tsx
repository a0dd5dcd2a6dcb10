import {
  ATTR_MCP_RESILIENCE_SERVER,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
} from '@mcp-resilience/middleware/semconv';
import type { Metadata } from 'next';
import { removeTarget } from '@/lib/actions';
import { maskUrl } from '@/lib/alerts/alert-store';
import { fetchAlerts } from '@/lib/data/fetchers';
import { fmtPct } from '@/lib/format';
import RuleForm from '@/ui/alerts/rule-form';
import TargetForm from '@/ui/alerts/target-form';
import LocalTime from '@/ui/local-time';

export const metadata: Metadata = { title: 'Alerts' };

export default async function AlertsPage() {
  const { rules, instances, history, targets, deliveries } = fetchAlerts();
  return (
    <main className="grid">
      <section className="panel">
        <h2>Rules</h2>
        {rules.map((r) => (
          <div key={r.id}>
            <p style={{ fontSize: 13, marginTop: 0 }}>
              <b>{r.name}</b>: retry efficiency below <b>{r.threshold}</b> over both{' '}
              {r.shortWindowMs / 60_000} min and {r.longWindowMs / 60_000} min, with at least {r.minRetries}{' '}
              retries in the long window, for {r.forMs / 60_000} min (per{' '}
              <code>{ATTR_MCP_RESILIENCE_SERVER}</code>). {r.enabled ? '' : <b className="warn">Disabled.</b>}
            </p>
            <RuleForm rule={r} />
          </div>
        ))}
      </section>
      <section className="panel">
        <h2>Alerts</h2>
        {instances.length === 0 ? (
          <div className="empty">No alert pending, firing or recently resolved.</div>
        ) : (
          <table data-testid="alert-instances">
            <thead>
              <tr>
                <th>state</th>
                <th>alert</th>
                <th>labels</th>
                <th>summary</th>
                <th>source</th>
                <th>since</th>
              </tr>
            </thead>
            <tbody>
              {instances.map((i) => (
                <tr key={i.key}>
                  <td>
                    <span className={`badge ${i.state}`}>{i.state}</span>
                  </td>
                  <td>{i.name}</td>
                  <td className="muted">
                    {Object.entries(i.labels)
                      .filter(([k]) => k !== 'alertname')
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ')}
                  </td>
                  <td>{i.summary}</td>
                  <td>{i.source}</td>
                  <td>
                    <LocalTime
                      t={
                        (i.state === 'resolved'
                          ? i.resolvedAt
                          : i.state === 'firing'
                            ? i.firedAt
                            : i.activeAt) ?? i.updated
                      }
                      format="datetime"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
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
                <th className="num">value</th>
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
                  <td className="num">{h.value === null ? '' : fmtPct(h.value)}</td>
                  <td>{h.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <h2>Notification targets (webhooks, retried through mcp-resilience)</h2>
        <table>
          <tbody>
            {targets.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{t.kind === 'slack' ? 'Slack-compatible' : 'generic JSON'}</td>
                <td className="muted">{maskUrl(t.url)}</td>
                <td>
                  <form action={removeTarget}>
                    <input type="hidden" name="id" value={t.id} />
                    <button type="submit" className="btn secondary">
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <TargetForm />
        {deliveries.length > 0 ? (
          <>
            <h2 style={{ marginTop: 16 }}>Recent deliveries</h2>
            <table>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <LocalTime t={d.at} format="datetime" />
                    </td>
                    <td>{d.target}</td>
                    <td>
                      <span className={`badge ${d.ok ? 'success' : 'failure'}`}>
                        {d.ok ? 'delivered' : 'failed'}
                      </span>
                    </td>
                    <td className="num">{d.attempts} attempt(s)</td>
                    <td className="muted">{d.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
      </section>
      <section className="panel">
        <h2>Alertmanager</h2>
        <p style={{ fontSize: 13, margin: 0 }}>
          With the Prometheus setup, point an Alertmanager <code>webhook_configs</code> receiver at{' '}
          <code>/api/alerts/webhook</code> (with <code>send_resolved: true</code>); its alerts appear in the
          list above and in the banner.
        </p>
      </section>
    </main>
  );
}
