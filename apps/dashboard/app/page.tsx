import type { Metadata } from 'next';
import { Suspense } from 'react';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import HeadlinePanel from '@/ui/overview/headline-panel';
import OverviewCharts from '@/ui/overview/overview-charts';
import { CardsSkeleton, ChartsSkeleton } from '@/ui/skeletons';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage(props: { searchParams: Promise<PageSearchParams> }) {
  const { range, query } = parsePageQuery(await props.searchParams, Date.now());
  const key = `${range}|${query.filters.service}|${query.filters.server}|${query.filters.tool}`;
  return (
    <main>
      <Suspense key={`h${key}`} fallback={<CardsSkeleton />}>
        <HeadlinePanel query={query} />
      </Suspense>
      <Suspense key={`c${key}`} fallback={<ChartsSkeleton />}>
        <OverviewCharts query={query} />
      </Suspense>
    </main>
  );
}
