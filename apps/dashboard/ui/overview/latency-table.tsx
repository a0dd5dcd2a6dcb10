import Link from 'next/link';
import type { LatencyStat } from '@/lib/data/types';
import { fmtNumber, fmtSeconds } from '@/lib/format';
import { latencyLabel } from './latency-label';

/**
 * p50/p95/p99 of the whole call (attempts, backoff and waits) per server and tool (or method, for calls without a
 * tool), from the histogram. Each row links to its calls: by server and tool, or method for a row without a tool.
 */
export default function LatencyTable({ rows, query }: { rows: LatencyStat[]; query: string }) {
  if (rows.length === 0) return <div className="empty">No call duration in this window.</div>;
  return (
    <table data-testid="latency-table">
      <thead>
        <tr>
          <th>server / tool (or method)</th>
          <th className="num">calls</th>
          <th className="num">p50</th>
          <th className="num">p95</th>
          <th className="num">p99</th>
        </tr>
      </thead>
      <tbody>
        {rows.slice(0, 20).map((r) => {
          const p = new URLSearchParams(query);
          p.set('server', r.server);
          // a row without a tool holds its method's calls (tools/list, ...), one of neither the calls that
          // name neither: the link asks for exactly those
          if (r.tool) p.set('tool', r.tool);
          else if (r.method) p.set('method', r.method);
          else p.set('without', 'tool,method');
          const label = latencyLabel(r);
          return (
            <tr
              key={`${r.server}/${r.tool}/${r.method}`}
              data-testid="latency-row"
              data-server={r.server}
              data-label-kind={label.kind}
            >
              <td>
                <Link href={`/calls?${p}`} title={label.title}>
                  {r.server}
                  <span className="muted"> / {label.text}</span>
                </Link>
              </td>
              <td className="num">{fmtNumber(r.calls)}</td>
              <td className="num">{fmtSeconds(r.p50)}</td>
              <td className="num" data-testid="latency-p95">
                {fmtSeconds(r.p95)}
              </td>
              <td className="num">{fmtSeconds(r.p99)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
