import type { BreakerTimelineRow } from '@/lib/data/types';
import { fmtMs, STATE_LABEL } from '@/lib/format';
import LocalTime from '../local-time';

const COLORS: Record<string, string> = { closed: '#1a9e55', half_open: '#f08c00', open: '#d93636' };
const GONE_COLOR = '#d5d9e0';
const GONE_LABEL = 'No data (gone)';

/**
 * Grafana-style state timeline: one band per breaker, coloured by state (server-rendered SVG); a breaker whose
 * processes exited ends at its last report, grey "No data (gone)" after it.
 */
export default function BreakerTimeline({
  rows,
  from,
  to,
}: {
  rows: BreakerTimelineRow[];
  from: number;
  to: number;
}) {
  if (rows.length === 0) return <div className="empty">No breaker in this window.</div>;
  const span = Math.max(1, to - from);
  const pct = (t: number) => ((Math.min(to, Math.max(from, t)) - from) / span) * 100;
  return (
    <div data-testid="breaker-timeline">
      {rows.map((r) => (
        <div key={`${r.server}|${r.tool ?? ''}`} className="timeline-row">
          <span title={r.tool ? `${r.server} / ${r.tool}` : r.server}>
            {r.server}
            {r.tool ? <span className="muted"> / {r.tool}</span> : null}
          </span>
          <svg
            width="100%"
            height="18"
            viewBox="0 0 100 18"
            preserveAspectRatio="none"
            role="img"
            aria-label={`${r.server} state timeline`}
          >
            {r.segments.map((s) => (
              <rect
                key={s.from}
                x={pct(s.from)}
                width={Math.max(0.2, pct(s.to) - pct(s.from))}
                y={2}
                height={14}
                fill={COLORS[s.state]}
              >
                <title>{`${STATE_LABEL[s.state]} for ${fmtMs(s.to - s.from)}`}</title>
              </rect>
            ))}
            {r.goneFrom === undefined ? null : (
              <rect
                className="timeline-gone"
                x={pct(r.goneFrom)}
                width={Math.max(0.2, 100 - pct(r.goneFrom))}
                y={2}
                height={14}
                fill={GONE_COLOR}
              >
                <title>{`${GONE_LABEL} since its last report`}</title>
              </rect>
            )}
          </svg>
        </div>
      ))}
      <div className="timeline-row muted">
        <span />
        <span style={{ display: 'flex', justifyContent: 'space-between' }}>
          <span>
            <LocalTime t={from} format="axis" spanMs={span} />
          </span>
          <span>
            <LocalTime t={from + span / 2} format="axis" spanMs={span} />
          </span>
          <span>
            <LocalTime t={to} format="axis" spanMs={span} />
          </span>
        </span>
      </div>
      <div className="legend">
        {Object.entries(COLORS).map(([s, c]) => (
          <span key={s}>
            <i style={{ background: c }} />
            {STATE_LABEL[s]}
          </span>
        ))}
        {rows.some((r) => r.goneFrom !== undefined) ? (
          <span>
            <i style={{ background: GONE_COLOR }} />
            {GONE_LABEL}
          </span>
        ) : null}
      </div>
    </div>
  );
}
