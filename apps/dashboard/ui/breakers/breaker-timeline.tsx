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
        <TimelineRow key={`${r.server}|${r.tool ?? ''}`} row={r} pct={pct} />
      ))}
      <TimelineAxis from={from} span={span} />
      <TimelineLegend gone={rows.some((r) => r.goneFrom !== undefined)} />
    </div>
  );
}

function TimelineRow({ row: r, pct }: { row: BreakerTimelineRow; pct: (t: number) => number }) {
  return (
    <div className="timeline-row">
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
  );
}

function TimelineAxis({ from, span }: { from: number; span: number }) {
  return (
    <div className="timeline-row muted">
      <span />
      <span style={{ display: 'flex', justifyContent: 'space-between' }}>
        {[0, 0.5, 1].map((f) => (
          <span key={f}>
            <LocalTime t={from + span * f} format="axis" spanMs={span} />
          </span>
        ))}
      </span>
    </div>
  );
}

function TimelineLegend({ gone }: { gone: boolean }) {
  return (
    <div className="legend">
      {Object.entries(COLORS).map(([s, c]) => (
        <span key={s}>
          <i style={{ background: c }} />
          {STATE_LABEL[s]}
        </span>
      ))}
      {gone ? (
        <span>
          <i style={{ background: GONE_COLOR }} />
          {GONE_LABEL}
        </span>
      ) : null}
    </div>
  );
}
