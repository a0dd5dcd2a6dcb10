import {
  fetchCallSeries,
  fetchEfficiencySeries,
  fetchErrorBreakdown,
  fetchErrorSeries,
} from '@/lib/data/fetchers';
import type { TimeQuery } from '@/lib/data/types';
import { fmtNumber, fmtPct } from '@/lib/format';
import ErrorClassChart from '../errors/error-class-chart';
import CallsChart from './calls-chart';
import EfficiencyChart from './efficiency-chart';

/** The overview's charts and the error-type table (server-side down-sampled series, client-side Recharts). */
export default async function OverviewCharts({ query }: { query: TimeQuery }) {
  const [efficiency, calls, classes, byType, byClass] = await Promise.all([
    fetchEfficiencySeries(query),
    fetchCallSeries(query),
    fetchErrorSeries(query, 'class'),
    fetchErrorBreakdown(query, 'type'),
    fetchErrorBreakdown(query, 'class'),
  ]);
  const totalErrors = byClass.reduce((s, r) => s + r.count, 0);
  const span = query.to - query.from;
  return (
    <div className="grid two">
      <section className="panel">
        <h2>Retry efficiency over time (successful / all retries, target 0.8)</h2>
        <EfficiencyChart series={efficiency} spanMs={span} />
      </section>
      <section className="panel">
        <h2>Calls per minute</h2>
        <CallsChart series={calls} spanMs={span} />
      </section>
      <section className="panel">
        <h2>Error-class distribution (failed attempts)</h2>
        <ErrorClassChart series={classes} spanMs={span} />
        <table data-testid="errors-by-class">
          <tbody>
            <tr>
              {byClass.map((r) => (
                <td key={r.key}>
                  <span className={`badge ${r.key}`}>{r.key}</span> <b>{fmtNumber(r.count)}</b>{' '}
                  <span className="muted">{totalErrors > 0 ? fmtPct(r.count / totalErrors, 0) : ''}</span>
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h2>Errors by type</h2>
        {byType.length === 0 ? (
          <div className="empty">No failed attempts in this window.</div>
        ) : (
          <table data-testid="errors-by-type">
            <thead>
              <tr>
                <th>error.type</th>
                <th className="num">failed attempts</th>
                <th className="num">share</th>
              </tr>
            </thead>
            <tbody>
              {byType.slice(0, 12).map((r) => (
                <tr key={r.key}>
                  <td>{r.key}</td>
                  <td className="num">{fmtNumber(r.count)}</td>
                  <td className="num">{fmtPct(totalErrors > 0 ? r.count / totalErrors : null, 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
