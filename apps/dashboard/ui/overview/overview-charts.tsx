import Link from 'next/link';
import { chartsStart } from '@/lib/data/data-start';
import {
  fetchAnnotations,
  fetchCallSeries,
  fetchEfficiencySeries,
  fetchErrorMatrix,
  fetchErrorSeries,
  fetchLatency,
} from '@/lib/data/fetchers';
import type { TimeQuery } from '@/lib/data/types';
import { fmtNumber, fmtShare } from '@/lib/format';
import BucketNote from '../charts/bucket-note';
import DataSince from '../charts/data-since';
import MarksHelp from '../charts/marks-help';
import ErrorClassChart from '../errors/error-class-chart';
import CallsChart from './calls-chart';
import EfficiencyChart from './efficiency-chart';
import LatencyTable from './latency-table';

const CLASSES = ['retryable', 'non_retryable', 'conditional'] as const;

/** A link to the Calls page with the page's query and `extra` parameters. */
const callsLinkOf = (qs: string) => (extra: Record<string, string>) => {
  const p = new URLSearchParams(qs);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return `/calls?${p}`;
};

/**
 * The overview's charts (server-side down-sampled series, client-side Recharts, breaker transitions and alerts
 * marked on each), latency percentiles, and the error tables: class and type come from one query, so they
 * always agree.
 */
export default async function OverviewCharts({ query, qs }: { query: TimeQuery; qs: string }) {
  const [efficiency, calls, classes, matrix, latency, annotations] = await Promise.all([
    fetchEfficiencySeries(query),
    fetchCallSeries(query),
    fetchErrorSeries(query, 'class'),
    fetchErrorMatrix(query),
    fetchLatency(query),
    fetchAnnotations(query),
  ]);
  const totalErrors = matrix.reduce((s, r) => s + r.count, 0);
  const byClass = CLASSES.map((key) => ({
    key,
    count: matrix.filter((r) => r.errorClass === key).reduce((s, r) => s + r.count, 0),
  }));
  const span = query.to - query.from;
  const start = chartsStart({ calls, efficiency, errors: classes }, annotations);
  const callsLink = callsLinkOf(qs);
  return (
    <div className="grid two">
      <MarksHelp />
      <DataSince start={start} from={query.from} step={calls.step} />
      <BucketNote step={calls.step} exportMs={calls.exportMs} />
      <section className="panel">
        <h2>Retry efficiency over time (successful / all retries, target 0.8), with retry volume</h2>
        <EfficiencyChart series={efficiency} spanMs={span} annotations={annotations} start={start} />
      </section>
      <section className="panel">
        <h2>Calls per minute</h2>
        <CallsChart series={calls} spanMs={span} annotations={annotations} start={start} />
      </section>
      <section className="panel">
        <h2>Error-class distribution (failed attempts)</h2>
        <ErrorClassChart series={classes} spanMs={span} annotations={annotations} start={start} />
        <table data-testid="errors-by-class">
          <tbody>
            <tr>
              {byClass.map((r) => (
                <td key={r.key}>
                  <Link href={callsLink({ class: r.key })}>
                    <span className={`badge ${r.key}`}>{r.key}</span>
                  </Link>{' '}
                  <b>{fmtNumber(r.count)}</b>{' '}
                  <span className="muted">{totalErrors > 0 ? fmtShare(r.count / totalErrors) : ''}</span>
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h2>Errors by type, as the agents classified them</h2>
        {matrix.length === 0 ? (
          <div className="empty">No failed attempts in this window.</div>
        ) : (
          <table data-testid="errors-by-type">
            <thead>
              <tr>
                <th>error.type</th>
                <th>class given</th>
                <th className="num">failed attempts</th>
                <th className="num">share</th>
              </tr>
            </thead>
            <tbody>
              {matrix.slice(0, 12).map((r) => (
                <tr key={`${r.type}/${r.errorClass}`}>
                  <td>
                    <Link href={callsLink({ type: r.type })}>{r.type}</Link>
                  </td>
                  <td>
                    <span className={`badge ${r.errorClass}`}>{r.errorClass}</span>
                  </td>
                  <td className="num">{fmtNumber(r.count)}</td>
                  <td className="num">{fmtShare(totalErrors > 0 ? r.count / totalErrors : null)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel">
        <h2>Call latency p50 / p95 / p99 (whole call: attempts, backoff, waits)</h2>
        <LatencyTable rows={latency} query={qs} />
      </section>
    </div>
  );
}
