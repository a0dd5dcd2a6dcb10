import { removeTarget } from '@/lib/actions';
import { type Delivery, maskUrl, type NotificationTarget } from '@/lib/alerts/alert-store';
import LocalTime from '@/ui/local-time';
import TargetForm from './target-form';

/** The notification targets (their URLs masked), the form to add one, and the recent deliveries. */
export default function TargetsPanel({
  targets,
  deliveries,
}: {
  targets: readonly NotificationTarget[];
  deliveries: readonly Delivery[];
}) {
  return (
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
      <Deliveries deliveries={deliveries} />
    </section>
  );
}

function Deliveries({ deliveries }: { deliveries: readonly Delivery[] }) {
  if (deliveries.length === 0) return null;
  return (
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
  );
}
