import Link from 'next/link';
import type { Experiment } from '@/lib/data/experiments';
import { fmtNumber, fmtPct } from '@/lib/format';
import LocalTime from '../local-time';
import styles from './experiments.module.css';

type Shadow = Experiment['shadow'];

/** The shadow classifier against the acting one: a class × class matrix, then the disagreements by type. */
export default function ConfusionMatrix({
  shadow,
  callsHref,
}: {
  shadow: Shadow;
  callsHref: (e: { at: number; server: string; tool: string; variant: string; callSpanId: string }) => string;
}) {
  const classes = [...new Set(shadow.matrix.map((c) => c.primary))];
  const count = (p: string, s: string) =>
    shadow.matrix.find((c) => c.primary === p && c.shadow === s)?.count ?? 0;
  return (
    <div data-testid="shadow-matrix">
      <p style={{ margin: '0 0 8px' }}>
        The shadow classified <b>{fmtNumber(shadow.disagreements)}</b> of {fmtNumber(shadow.failures)} failed
        attempts differently ({fmtPct(shadow.failures > 0 ? shadow.disagreements / shadow.failures : null)}).
      </p>
      <table className={styles.matrix}>
        <thead>
          <tr>
            <th>acting ↓ / shadow →</th>
            {classes.map((c) => (
              <th key={c} className="num">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {classes.map((p) => (
            <tr key={p}>
              <th>{p}</th>
              {classes.map((s) => {
                const n = count(p, s);
                const cls = p === s ? styles.diag : n > 0 ? styles.off : '';
                return (
                  <td key={s} className={`cell ${cls}`} data-cell={`${p}>${s}`}>
                    {fmtNumber(n)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <h2 style={{ marginTop: 16 }}>Disagreements by type</h2>
      {shadow.rows.length === 0 ? (
        <div className="empty">
          No disagreements recorded (no shadow classifier configured, or it agrees on every failure).
        </div>
      ) : (
        <table data-testid="shadow-disagreements">
          <thead>
            <tr>
              <th>Variant</th>
              <th>Acting</th>
              <th>Shadow</th>
              <th className="num">Failed attempts</th>
              <th>Example calls</th>
            </tr>
          </thead>
          <tbody>
            {shadow.rows.map((r) => (
              <tr key={`${r.variant}|${r.errorClass}|${r.errorType}|${r.shadowClass}|${r.shadowType}`}>
                <td>{r.variant || <span className="muted">none</span>}</td>
                <td>
                  {r.errorClass} / {r.errorType}
                </td>
                <td>
                  {r.shadowClass} / {r.shadowType}
                </td>
                <td className="num">{fmtNumber(r.count)}</td>
                <td>
                  {!shadow.examplesAvailable ? (
                    <span className="muted">in your tracing backend (attempt spans with a shadow event)</span>
                  ) : r.examples.length === 0 ? (
                    <span className="muted">none kept</span>
                  ) : (
                    r.examples.map((e) => (
                      <Link
                        key={e.spanId}
                        href={callsHref(e)}
                        data-testid="shadow-example"
                        style={{ marginRight: 8 }}
                      >
                        {e.server}
                        {e.tool ? `/${e.tool}` : ''} <LocalTime t={e.at} />
                      </Link>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
