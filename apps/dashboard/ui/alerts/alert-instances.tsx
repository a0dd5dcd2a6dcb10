import type { AlertInstance } from '@/lib/alerts/alert-store';
import { fmtAlertValue } from '@/lib/alerts/alert-value';
import LocalTime from '@/ui/local-time';

/** When an alert entered its state: resolved, fired, or became pending. */
const since = (i: AlertInstance) =>
  (i.state === 'resolved' ? i.resolvedAt : i.state === 'firing' ? i.firedAt : i.activeAt) ?? i.updated;

/**
 * The alerts pending, firing or recently resolved, with their value and summary as of the last evaluation
 * (named with its time: the history below keeps each change's own).
 */
export default function AlertInstances({ instances }: { instances: readonly AlertInstance[] }) {
  return (
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
              <th className="num">value now</th>
              <th>summary now</th>
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
                <td className="num" data-testid="instance-value">
                  {fmtAlertValue(i)}
                </td>
                <td>
                  {i.summary}{' '}
                  <span className="muted" data-testid="instance-evaluated">
                    (as of <LocalTime t={i.updated} />)
                  </span>
                </td>
                <td>{i.source}</td>
                <td>
                  <LocalTime t={since(i)} format="datetime" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
