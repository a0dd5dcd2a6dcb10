'use client';

import { useEffect, useState } from 'react';
import type { BreakerTile } from '@/lib/data/types';
import { fleetVerdictLabel } from '@/lib/fleet-verdict';
import { fmtElapsed, fmtNumber, fmtShare, STATE_LABEL } from '@/lib/format';
import { breakerKey, useLive } from '../live/live-provider';
import Sparkline from './sparkline';

const RANK = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * A tile per breaker (Hystrix-style), worst first; states follow the SSE stream without a reload. Elapsed
 * times start from the server's render time (`renderedAt`), so the server HTML and the first client render
 * are identical (no hydration mismatch); a timer then moves them on.
 */
export default function BreakerGrid({
  tiles,
  renderedAt,
  complete = true,
}: {
  tiles: BreakerTile[];
  renderedAt: number;
  /** Every breaker is on this page: a breaker reported live for the first time joins it (else: its own page). */
  complete?: boolean;
}) {
  const live = useLive().breakers;
  const [now, setNow] = useState(renderedAt);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const merged = tiles.map((tile) => {
    const l = live[breakerKey(tile.server, tile.tool)];
    if (l === null) return { ...tile, stale: true };
    if (l && l.since >= tile.since) return { ...tile, state: l.state, since: l.since, stale: false };
    return tile;
  });
  for (const [key, l] of Object.entries(live)) {
    if (!complete || !l || merged.some((t) => breakerKey(t.server, t.tool) === key)) continue;
    merged.push({
      server: l.server,
      tool: l.tool,
      state: l.state,
      since: l.since,
      instances: { closed: 0, open: 0, half_open: 0, [l.state]: 1 },
      gone: 0,
      stale: false,
      errorRate: null,
      errorRateRange: null,
      calls: 0,
      callsPerSecond: 0,
      sparkline: [],
      lastTransition: null,
      waiting: 0,
      shed: 0,
    });
  }
  merged.sort(
    (a, b) =>
      Number(a.stale) - Number(b.stale) ||
      RANK[b.state] - RANK[a.state] ||
      (b.errorRate ?? -1) - (a.errorRate ?? -1),
  );
  if (merged.length === 0) {
    return <div className="panel empty">No circuit breaker has reported yet.</div>;
  }
  return (
    <div className="grid tiles">
      {merged.map((t) => {
        const instances = Object.entries(t.instances).filter(([, n]) => n > 0);
        return (
          <div
            key={breakerKey(t.server, t.tool)}
            className={`panel tile ${t.state}${t.stale ? ' stale' : ''}`}
            data-testid="breaker-tile"
            data-server={t.server}
            data-state={t.state}
          >
            <div className="head">
              <span className="name" title={t.tool ? `${t.server} / ${t.tool}` : t.server}>
                {t.server}
                {t.tool ? <span className="muted"> / {t.tool}</span> : null}
              </span>
              <span className={`badge ${t.stale ? 'stale' : t.state}`} data-testid="breaker-state">
                {t.stale ? 'stale' : STATE_LABEL[t.state]}
              </span>
            </div>
            <div className="stats">
              <span>
                in state <b>{fmtElapsed(now - t.since)}</b>
              </span>
              <span data-testid="breaker-error">
                error <b>{fmtShare(t.errorRate)}</b> now · {fmtShare(t.errorRateRange)} range
              </span>
              <span>
                <b>{fmtNumber(t.callsPerSecond, 2)}</b> calls/s
              </span>
              <span data-testid="breaker-instances">
                {instances.length > 1 || (instances[0]?.[1] ?? 0) > 1
                  ? instances.map(([s, n]) => `${STATE_LABEL[s]} ${n}`).join(' / ')
                  : '1 instance'}
                {t.gone > 0 ? (
                  <span className="muted" data-testid="breaker-gone" title="not seen for over 3 minutes">
                    {' '}
                    · {t.gone} gone
                  </span>
                ) : null}
              </span>
              <span data-testid="breaker-waiting">
                <b>{fmtNumber(t.waiting, 0)}</b> waiting
              </span>
              <span data-testid="breaker-shed">
                <b>{fmtNumber(t.shed)}</b> shed
              </span>
            </div>
            <Sparkline points={t.sparkline} partialFrom={t.partialFrom} />
            <div className="sub muted" style={{ fontSize: 12 }} data-testid="breaker-entered">
              {t.lastTransition && t.lastTransition.to === t.state
                ? `entered: ${STATE_LABEL[t.lastTransition.from] ?? t.lastTransition.from} → ${STATE_LABEL[t.lastTransition.to] ?? t.lastTransition.to} (${t.lastTransition.reason || 'n/a'}) ${fmtElapsed(now - t.lastTransition.at)} ago`
                : 'no transition into this state in the window'}
            </div>
            {t.lastTransition &&
            t.lastTransition.to === t.state &&
            fleetVerdictLabel(t.lastTransition.reason) ? (
              <div className="sub" style={{ fontSize: 12 }} data-testid="breaker-fleet">
                {fleetVerdictLabel(t.lastTransition.reason)}
              </div>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
