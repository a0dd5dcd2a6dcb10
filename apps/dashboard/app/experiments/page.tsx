import type { Metadata } from 'next';
import { fetchExperiment } from '@/lib/data/experiments-fetch';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import ConfusionMatrix from '@/ui/experiments/confusion-matrix';
import ServerVerdicts from '@/ui/experiments/server-verdicts';
import VariantTable from '@/ui/experiments/variant-table';
import Verdicts from '@/ui/experiments/verdicts';

export const metadata: Metadata = { title: 'Experiments' };

export default async function ExperimentsPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const { range, query } = parsePageQuery(sp, Date.now());
  const experiment = await fetchExperiment(query);
  // The Calls page lists the newest calls of its window: a window that ends just after the example's failed
  // attempt keeps its call on the page however many calls came after it.
  const callsHref = (e: {
    at: number;
    server: string;
    tool: string;
    variant: string;
    callSpanId: string;
  }) => {
    const to = Math.ceil(e.at) + 1_000;
    const p = new URLSearchParams({ range, from: String(to - 300_000), to: String(to), server: e.server });
    if (e.tool) p.set('tool', e.tool);
    if (e.variant) p.set('variant', e.variant);
    if (typeof sp.service === 'string') p.set('service', sp.service);
    return `/calls?${p}#call-${e.callSpanId}`;
  };
  const serverHref = (server: string) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(sp)) if (typeof v === 'string' && k !== 'server') p.set(k, v);
    p.set('server', server);
    return `/experiments?${p}`;
  };
  return (
    <main>
      <section className="panel" style={{ marginBottom: 14 }}>
        <h2>Canary: variants compared with the control</h2>
        {experiment.variants.length === 0 ? (
          <div className="empty" data-testid="experiments-empty">
            No calls with a variant in this window. Give <code>createResilience</code> or{' '}
            <code>withResilience</code> <code>variants</code> and a <code>split</code> to run a canary.
          </div>
        ) : (
          <>
            <Verdicts comparisons={experiment.comparisons} />
            <ServerVerdicts servers={experiment.servers} differ={experiment.differ} href={serverHref} />
            <div style={{ overflowX: 'auto', marginTop: 12 }}>
              <VariantTable variants={experiment.variants} />
            </div>
          </>
        )}
      </section>
      <section className="panel">
        <h2>Shadow classifier: what it would have decided</h2>
        <ConfusionMatrix shadow={experiment.shadow} callsHref={callsHref} />
      </section>
    </main>
  );
}
