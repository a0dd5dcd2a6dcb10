import { compareNumbers } from '@/lib/data/compare-numbers';
import type { CompareBy, CompareGroup } from '@/lib/data/types';
import { efficiencyVerdict, fmtNumber, fmtPct, fmtSeconds } from '@/lib/format';

/**
 * Compare mode's table, a row per group: its calls, the failure share, the successful calls per minute, the
 * requests per successful call, the time failed calls cost, and the retries with their efficiency.
 */
export default function CompareTable({ groups, by }: { groups: readonly CompareGroup[]; by: CompareBy }) {
  return (
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
            <th className="num" title="requests on the wire (first requests and retries) per successful call">
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
          {groups.map((g) => (
            <CompareRow key={g.key} g={g} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A group's row. */
function CompareRow({ g }: { g: CompareGroup }) {
  const v = efficiencyVerdict(g.retries.successful, g.retries.total);
  const n = compareNumbers(g);
  return (
    <tr data-testid="compare-row" data-key={g.key}>
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
}
