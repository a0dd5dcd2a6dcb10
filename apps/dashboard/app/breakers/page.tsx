import type { Metadata } from 'next';
import { fetchBreakerTiles, fetchBreakerTimeline } from '@/lib/data/fetchers';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import BreakerGrid from '@/ui/breakers/breaker-grid';
import BreakerTimeline from '@/ui/breakers/breaker-timeline';

export const metadata: Metadata = { title: 'Breakers' };

export default async function BreakersPage(props: { searchParams: Promise<PageSearchParams> }) {
  const renderedAt = Date.now();
  const { query } = parsePageQuery(await props.searchParams, renderedAt);
  const [tiles, timeline] = await Promise.all([fetchBreakerTiles(query), fetchBreakerTimeline(query)]);
  return (
    <main>
      <BreakerGrid tiles={tiles} renderedAt={renderedAt} />
      <section className="panel">
        <h2>State timeline (worst state across instances)</h2>
        <BreakerTimeline rows={timeline} from={query.from} to={query.to} />
      </section>
    </main>
  );
}
