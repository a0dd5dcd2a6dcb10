import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { Suspense } from 'react';
import { fetchConnectInfo, fetchDimensions, sourceCapabilities } from '@/lib/data/fetchers';
import { COMPARE_BY, type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import ComparePanel from '@/ui/overview/compare-panel';
import EmptyState from '@/ui/overview/empty-state';
import HeadlinePanel from '@/ui/overview/headline-panel';
import OverviewCharts from '@/ui/overview/overview-charts';
import { CardsSkeleton, ChartsSkeleton } from '@/ui/skeletons';

export const metadata: Metadata = { title: 'Overview' };

/** The incident view: "now" and the range side by side, charts with marks, latency, compare mode. */
export default async function OverviewPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const parsed = parsePageQuery(sp, Date.now());
  const { range, custom, query } = parsed;
  // by instance needs per-instance counts (PromQL); the embedded facts carry no instance
  const canByInstance = sourceCapabilities().instances;
  const compare = parsed.compare === 'instance' && !canByInstance ? undefined : parsed.compare;
  const f = query.filters;
  const key = `${custom ? `${query.from}-${query.to}` : range}|${f.service}|${f.server}|${f.tool}|${f.method}|${f.variant}|${compare}`;
  const qs = new URLSearchParams(
    Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'compare'),
  );
  const dims = await fetchDimensions({ from: query.to - 7 * 86_400_000, to: query.to, filters: {} });
  if (dims.services.length === 0 && dims.servers.length === 0) {
    const h = await headers();
    const origin = `${h.get('x-forwarded-proto') ?? 'http'}://${h.get('host') ?? 'localhost:3000'}`;
    return (
      <main>
        <EmptyState {...fetchConnectInfo(origin)} />
      </main>
    );
  }
  const compareLink = (by: string | undefined) => {
    const p = new URLSearchParams(qs);
    if (by) p.set('compare', by);
    return `/?${p}`;
  };
  const rangeLabel = custom ? 'range' : `last ${range}`;
  return (
    <main>
      <Suspense key={`h${key}`} fallback={<CardsSkeleton />}>
        <HeadlinePanel query={query} rangeLabel={rangeLabel} custom={custom} />
      </Suspense>
      <nav className="compare-bar" aria-label="compare" data-testid="compare-bar">
        <span className="muted">Compare side by side:</span>
        <Link href={compareLink(undefined)} className={`badge${compare ? '' : ' success'}`}>
          off
        </Link>
        {COMPARE_BY.filter(
          (b) => (b !== 'variant' || dims.variants.length > 0) && (b !== 'instance' || canByInstance),
        ).map((b) => (
          <Link key={b} href={compareLink(b)} className={`badge${compare === b ? ' success' : ''}`}>
            by {b}
          </Link>
        ))}
      </nav>
      {compare ? (
        <Suspense key={`x${key}`} fallback={<ChartsSkeleton />}>
          <ComparePanel query={query} by={compare} />
        </Suspense>
      ) : null}
      <Suspense key={`c${key}`} fallback={<ChartsSkeleton />}>
        <OverviewCharts query={query} qs={qs.toString()} />
      </Suspense>
    </main>
  );
}
