import type { Metadata } from 'next';
import Link from 'next/link';
import {
  fetchAnnotations,
  fetchErrorBreakdown,
  fetchErrorMatrix,
  fetchErrorSeries,
} from '@/lib/data/fetchers';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import type { BreakdownRow } from '@/lib/data/types';
import { fmtNumber, fmtPct } from '@/lib/format';
import ErrorClassChart from '@/ui/errors/error-class-chart';

export const metadata: Metadata = { title: 'Errors' };

function Breakdown({ title, rows, testid }: { title: string; rows: BreakdownRow[]; testid: string }) {
  const total = rows.reduce((s, r) => s + r.count, 0);
  return (
    <section className="panel">
      <h2>{title}</h2>
      {total === 0 ? (
        <div className="empty">No failed attempts.</div>
      ) : (
        <table data-testid={testid}>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td>{r.key}</td>
                <td className="num">{fmtNumber(r.count)}</td>
                <td className="num muted">{fmtPct(r.count / total, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export default async function ErrorsPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const { query } = parsePageQuery(sp, Date.now());
  const by = sp.by === 'type' ? 'type' : 'class';
  const [series, matrix, byServer, byTool, annotations] = await Promise.all([
    fetchErrorSeries(query, by),
    fetchErrorMatrix(query),
    fetchErrorBreakdown(query, 'server'),
    fetchErrorBreakdown(query, 'tool'),
    fetchAnnotations(query),
  ]);
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
        <ErrorClassChart series={series} spanMs={query.to - query.from} annotations={annotations} />
      </section>
      <div className="grid two">
        <Breakdown title="By class" rows={byClass} testid="errors-class" />
        <Breakdown title="By type (and the class it was given)" rows={byType} testid="errors-type" />
        <Breakdown title="By server" rows={byServer} testid="errors-server" />
        <Breakdown title="By tool" rows={byTool} testid="errors-tool" />
      </div>
    </main>
  );
}
