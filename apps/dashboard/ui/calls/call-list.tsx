import type { CallRow } from '@/lib/data/types';
import { fmtMs } from '@/lib/format';
import LocalTime from '../local-time';
import { latencyLabel } from '../overview/latency-label';
import Waterfall from './waterfall';

/** Each call opens to its attempt waterfall. */
export default function CallList({ calls }: { calls: CallRow[] }) {
  if (calls.length === 0) return <div className="empty">No failed or retried call in this window.</div>;
  return (
    <div data-testid="call-list">
      <div
        className="muted"
        style={{
          display: 'grid',
          gridTemplateColumns: '80px 1fr 1.4fr 90px 70px 1.4fr 90px 90px',
          gap: 8,
          fontSize: 12,
          padding: '0 0 4px 14px',
        }}
      >
        <span>time</span>
        <span>service</span>
        <span>server / tool (or method)</span>
        <span>outcome</span>
        <span>attempts</span>
        <span>error</span>
        <span>duration</span>
        <span>wasted</span>
      </div>
      {calls.map((c) => (
        <CallItem key={c.spanId} call={c} />
      ))}
    </div>
  );
}

/** One call: its row (the tool, else the method, as the latency table names it), open to its waterfall. */
function CallItem({ call: c }: { call: CallRow }) {
  const target = latencyLabel(c);
  return (
    <details id={`call-${c.spanId}`} className="call" data-testid="call-row">
      <summary>
        <span>
          <LocalTime t={c.startMs} />
        </span>
        <span data-testid="call-service" title={c.service}>
          {c.service}
        </span>
        <span
          data-testid="call-target"
          data-label-kind={target.kind}
          title={`${target.title}${c.variant ? ` · variant ${c.variant}` : ''}`}
        >
          {c.variant ? (
            <span className="badge" data-testid="call-variant" title="variant" style={{ marginRight: 6 }}>
              {c.variant}
            </span>
          ) : null}
          {c.server}
          <span className="muted"> / {target.text}</span>
        </span>
        <span>
          <span className={`badge ${c.outcome}`}>{c.outcome}</span>
        </span>
        <span>{c.attempts}</span>
        <span>
          {c.errorType ? `${c.errorType} (${c.errorClass})` : <span className="muted">recovered</span>}
        </span>
        <span>{fmtMs(c.durationMs)}</span>
        <span>{c.wastedRetries > 0 ? `${c.wastedRetries} · ${fmtMs(c.wastedTimeMs)}` : '–'}</span>
      </summary>
      <Waterfall call={c} />
    </details>
  );
}
