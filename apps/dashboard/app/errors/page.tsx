import type { Metadata } from 'next';
import Link from 'next/link';
import { chartsStart } from '@/lib/data/data-start';
import {
  fetchAnnotations,
  fetchCallSeries,
  fetchErrorBreakdown,
  fetchErrorMatrix,
  fetchErrorSeries,
} from '@/lib/data/fetchers';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import BucketNote from '@/ui/charts/bucket-note';
import DataSince from '@/ui/charts/data-since';
import BreakdownTable from '@/ui/errors/breakdown-table';
import ErrorClassChart from '@/ui/errors/error-class-chart';

export const metadata: Metadata = { title: 'Errors' };

export default async function ErrorsPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const { query } = parsePageQuery(sp, Date.now());
  const by = sp.by === 'type' ? 'type' : 'class';
  const [series, matrix, byServer, byTool, annotations, calls] = await Promise.all([
    fetchErrorSeries(query, by),
    fetchErrorMatrix(query),
    fetchErrorBreakdown(query, 'server'),
    fetchErrorBreakdown(query, 'tool'),
    fetchAnnotations(query),
    fetchCallSeries(query),
  ]);
  // the chart starts at the first data (calls, not only failures) or mark
  const start = chartsStart({ calls, errors: series }, annotations);
  // class and type are two sums of the same rows (a type shows once per class it was given)
  const byClass = ['retryable', 'non_retryable', 'conditional'].map((key) => ({
    key,
    count: matrix.filter((r) => r.errorClass === key).reduce((s, r) => s + r.count, 0),
  }));
  const byType = matrix.map((r) => ({ key: `${r.type} (${r.errorClass})`, count: r.count }));
  const other = new URLSearchParams(
    Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  other.set('by', by === 'class' ? 'type' : 'class');
  return (
    <main>
      <section className="panel" style={{ marginBottom: 14 }}>
        <h2>
          Failed attempts over time, by {by} ·{' '}
          <Link href={`/errors?${other}`}>by {by === 'class' ? 'type' : 'class'}</Link>
        </h2>
        <DataSince start={start} from={query.from} step={series.step} />
        <BucketNote step={series.step} exportMs={series.exportMs} />
        <ErrorClassChart
          series={series}
          spanMs={query.to - query.from}
          annotations={annotations}
          start={start}
        />
      </section>
      <div className="grid two">
        <BreakdownTable title="By class" rows={byClass} testid="errors-class" />
        <BreakdownTable title="By type (and the class it was given)" rows={byType} testid="errors-type" />
        <BreakdownTable title="By server" rows={byServer} testid="errors-server" />
        <BreakdownTable title="By tool" rows={byTool} testid="errors-tool" />
      </div>
    </main>
  );
}
