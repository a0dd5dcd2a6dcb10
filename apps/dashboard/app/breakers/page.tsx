import type { Metadata } from 'next';
import { fetchBreakerPage } from '@/lib/data/fetchers';
import { type PageSearchParams, parseBreakerPageQuery, parsePageQuery } from '@/lib/data/query-params';
import BreakerGrid from '@/ui/breakers/breaker-grid';
import BreakerPager from '@/ui/breakers/breaker-pager';
import BreakerTimeline from '@/ui/breakers/breaker-timeline';

export const metadata: Metadata = { title: 'Breakers' };

/** One page of breakers (worst first), a filter, and the timeline of the breakers shown. */
export default async function BreakersPage(props: { searchParams: Promise<PageSearchParams> }) {
  const renderedAt = Date.now();
  const sp = await props.searchParams;
  const { query } = parsePageQuery(sp, renderedAt);
  const pageQuery = parseBreakerPageQuery(sp);
  const page = await fetchBreakerPage(query, pageQuery);
  const params = Object.fromEntries(
    Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const filtered = pageQuery.match !== undefined || pageQuery.state !== undefined;
  return (
    <main>
      <BreakerPager
        page={{ ...page, shown: page.tiles.length }}
        params={params}
        match={pageQuery.match}
        state={pageQuery.state}
        pageNumber={pageQuery.page}
      />
      <BreakerGrid
        tiles={page.tiles}
        renderedAt={renderedAt}
        complete={!filtered && page.offset === 0 && page.total <= page.tiles.length}
      />
      <section className="panel">
        <h2>State timeline (worst state across instances) of the breakers shown</h2>
        <BreakerTimeline rows={page.timeline} from={query.from} to={query.to} />
      </section>
    </main>
  );
}
