import { compareChartsStart } from '@/lib/data/compare-charts-start';
import { compareNumbers } from '@/lib/data/compare-numbers';
import { fetchAnnotations, fetchCompare } from '@/lib/data/fetchers';
import type { CompareBy, TimeQuery } from '@/lib/data/types';
import { efficiencyVerdict, fmtNumber, fmtPct, fmtSeconds } from '@/lib/format';
import DataSince from '../charts/data-since';
import CompareChart from './compare-chart';

/** Compare mode: the busiest services, variants or servers side by side, same plan, same axes. */
export default async function ComparePanel({ query, by }: { query: TimeQuery; by: CompareBy }) {
  const [groups, annotations] = await Promise.all([fetchCompare(query, by), fetchAnnotations(query)]);
  const span = query.to - query.from;
  if (groups.length === 0) {
    return (
      <section className="panel" data-testid="compare-panel">
        <div className="empty">No {by} has data in this window.</div>
      </section>
    );
  }
  const start = compareChartsStart(groups, annotations);
  const step = groups[0]!.calls.step;
  return (
    <section data-testid="compare-panel" style={{ marginBottom: 14 }}>
      <div className="grid two" style={{ marginBottom: 14 }}>
        <DataSince start={start} from={query.from} step={step} testId="compare-data-since" />
        <section className="panel">
          <h2>Retry efficiency by {by}</h2>
          <CompareChart
            groups={groups}
            by={by}
            metric="efficiency"
            spanMs={span}
            annotations={annotations}
            start={start}
          />
        </section>
        <section className="panel">
          <h2>Calls per minute by {by}</h2>
          <CompareChart
            groups={groups}
            by={by}
            metric="calls"
            spanMs={span}
            annotations={annotations}
            start={start}
          />
        </section>
      </div>
      <section className="panel">
        <table data-testid="compare-table">
          <thead>
            <tr>
              <th>{by}</th>
              <th className="num">calls</th>
              <th className="num" title="calls that did not succeed (failed or rejected), and their share">
                failed
              </th>
              <th className="num" title="successful calls per minute, from the group's first data">
                successful / min
              </th>
              <th
                className="num"
                title="requests on the wire (first requests and retries) per successful call"
              >
                requests / success
              </th>
              <th
                className="num"
                title="the summed duration of the calls that did not succeed, and per failed call"
              >
                time failed calls cost
              </th>
              <th className="num">retries</th>
              <th className="num">efficiency</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => {
              const v = efficiencyVerdict(g.retries.successful, g.retries.total);
              const n = compareNumbers(g);
              return (
                <tr key={g.key} data-testid="compare-row" data-key={g.key}>
                  <td>{g.key || '(none)'}</td>
                  <td className="num">{fmtNumber(g.callsTotal)}</td>
                  <td className="num" data-testid="compare-failed">
                    {fmtNumber(n.failed)} <span className="muted">({fmtPct(n.failedShare)})</span>
                  </td>
                  <td className="num" data-testid="compare-successes-per-minute">
                    {n.successesPerMinute === null ? '–' : fmtNumber(n.successesPerMinute, 1)}
                  </td>
                  <td className="num" data-testid="compare-requests-per-success">
                    {n.requestsPerSuccess === null ? '–' : fmtNumber(n.requestsPerSuccess, 2)}
                  </td>
                  <td className="num" data-testid="compare-failed-time">
                    {n.failed === 0 ? (
                      '–'
                    ) : (
                      <>
                        {fmtSeconds(n.failedSeconds)}{' '}
                        <span className="muted">({fmtSeconds(n.secondsPerFailedCall)} each)</span>
                      </>
                    )}
                  </td>
                  <td className="num">
                    {fmtNumber(g.retries.successful)}/{fmtNumber(g.retries.total)}
                  </td>
                  <td className={`num ${v.meetsTarget === null ? 'muted' : v.meetsTarget ? 'good' : 'bad'}`}>
                    {v.sufficient ? fmtPct(v.ratio) : 'insufficient data'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </section>
  );
}
