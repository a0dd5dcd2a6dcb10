import type { BreakerTimelineRow } from '@/lib/data/types';
import { fmtMs, STATE_LABEL } from '@/lib/format';
import LocalTime from '../local-time';

const COLORS: Record<string, string> = { closed: '#1a9e55', half_open: '#f08c00', open: '#d93636' };

/** Grafana-style state timeline: one band per breaker, coloured by state (server-rendered SVG). */
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
      </div>
    </div>
  );
}
