import Link from 'next/link';
import type { ServersDiffer, ServerVerdicts as ServerVerdictRows } from '@/lib/data/server-verdicts';
import styles from './experiments.module.css';
import { VERDICT_LABEL } from './verdicts';

/**
 * Each server's verdicts (the canary alert fires per server), beside the pooled ones above, and a "Servers
 * differ" line for a candidate some server contradicts; each server links to the page filtered to it.
 */
export default function ServerVerdicts({
  servers,
  differ,
  href,
}: {
  servers: readonly ServerVerdictRows[];
  differ: readonly ServersDiffer[];
  href: (server: string) => string;
}) {
  if (servers.length === 0) return null;
  const candidates = [...new Set(servers.flatMap((s) => s.comparisons.map((c) => c.candidate)))].sort();
  return (
    <div data-testid="server-verdicts" style={{ marginTop: 12 }}>
      {differ.map((d) => (
        <div key={d.candidate} className={`${styles.verdict} ${styles.worse}`} data-testid="servers-differ">
          <span className={styles.tag}>Servers differ</span>
          <span>
            {d.candidate}, pooled over servers: {VERDICT_LABEL[d.pooled].toLowerCase()}; but{' '}
            {d.servers.map((s, i) => (
              <span key={s.server}>
                {i > 0 ? ', ' : ''}
                {VERDICT_LABEL[s.verdict].toLowerCase()} on <Link href={href(s.server)}>{s.server}</Link>
              </span>
            ))}
            .
          </span>
        </div>
      ))}
      <table>
        <thead>
          <tr>
            <th>Server</th>
            {candidates.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {servers.map((s) => (
            <tr key={s.server} data-server={s.server}>
              <td>
                <Link href={href(s.server)}>{s.server}</Link>
              </td>
              {candidates.map((c) => {
                const v = s.comparisons.find((x) => x.candidate === c);
                return (
                  <td key={c} data-verdict={v?.verdict ?? ''} title={v?.text ?? ''}>
                    {v ? VERDICT_LABEL[v.verdict] : '–'}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
