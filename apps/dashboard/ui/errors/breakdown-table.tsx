import type { BreakdownRow } from '@/lib/data/types';
import { fmtNumber, fmtShare } from '@/lib/format';

/** One breakdown of the Errors page (by class, server or tool): count and share of the failed attempts. */
export default function BreakdownTable({
  title,
  rows,
  testid,
}: {
  title: string;
  rows: BreakdownRow[];
  testid: string;
}) {
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
                <td className="num muted">{fmtShare(r.count / total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
