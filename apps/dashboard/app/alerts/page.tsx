import type { Metadata } from 'next';
import { fetchAlerts } from '@/lib/data/fetchers';
import AlertHistory from '@/ui/alerts/alert-history';
import AlertInstances from '@/ui/alerts/alert-instances';
import RulesPanel from '@/ui/alerts/rules-panel';
import TargetsPanel from '@/ui/alerts/targets-panel';

export const metadata: Metadata = { title: 'Alerts' };

export default async function AlertsPage() {
  const { rules, instances, history, targets, deliveries } = fetchAlerts();
  return (
    <main className="grid">
      <RulesPanel rules={rules} />
      <AlertInstances instances={instances} />
      <AlertHistory history={history} />
      <TargetsPanel targets={targets} deliveries={deliveries} />
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
