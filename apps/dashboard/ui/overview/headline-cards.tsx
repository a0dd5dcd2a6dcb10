'use client';

import type { Headline, HeadlineWindow } from '@/lib/data/types';
import {
  efficiencyVerdict,
  fmtNumber,
  fmtPct,
  fmtSeconds,
  MIN_RETRIES_FOR_EFFICIENCY,
  TARGET_EFFICIENCY,
} from '@/lib/format';

const efficiencyText = (w: HeadlineWindow) => {
  const v = efficiencyVerdict(w.retries.successful, w.retries.total);
  return { ...v, text: v.sufficient ? fmtPct(v.ratio) : 'insufficient data' };
};
const rate = (w: HeadlineWindow) => fmtNumber(w.callsPerMinute, w.callsPerMinute < 10 ? 2 : 0);

/**
 * The KPI strip of the incident view: on every card the big figure is "now" (the last 5 minutes; breakers:
 * their state now), the selected range on the line below it, labelled once ("last 1h: …"). Rates are over
 * the time that has data. Live: the SSE `headline` events refresh the whole page (cards and charts together,
 * one snapshot), not the cards alone.
 */
export default function HeadlineCards({
  initial,
  rangeLabel,
  custom,
}: {
  initial: Headline;
  rangeLabel: string;
  custom: boolean;
}) {
  // One snapshot per render: the cards show the numbers the charts below were drawn from (the live stream
  // re-renders the whole page at most every 5 s), never a newer headline beside older charts.
  const h = initial;
  const now = h.now;
  const nowLabel = custom ? 'last 5 min of range' : 'now (5 min)';
  const effNow = efficiencyText(now);
  const effRange = efficiencyText(h);
  return (
    <div className="grid cards">
      <div className="panel card" data-testid="card-efficiency">
        <div className="label">Retry efficiency · {nowLabel}</div>
        <div
          className={`value ${effNow.meetsTarget === null ? 'muted' : effNow.meetsTarget ? 'good' : 'bad'}`}
          data-testid="efficiency-value"
        >
          {effNow.text}
        </div>
        <div className="sub" data-testid="efficiency-ratio">
          {fmtNumber(now.retries.successful)}/{fmtNumber(now.retries.total)} retries successful · target{' '}
          {TARGET_EFFICIENCY}
          {!effNow.sufficient && ` · needs ${MIN_RETRIES_FOR_EFFICIENCY}`}
        </div>
        <div className="range" data-testid="efficiency-range">
          {rangeLabel}: <b>{effRange.text}</b> · {fmtNumber(h.retries.successful)}/
          {fmtNumber(h.retries.total)}
        </div>
      </div>
      <div className="panel card" data-testid="card-calls">
        <div className="label">Calls per minute · {nowLabel}</div>
        <div className="value" data-testid="calls-per-minute">
          {rate(now)}
        </div>
        <div className="sub" data-testid="calls-now">
          {fmtNumber(now.calls.total)} calls · {fmtNumber(now.calls.failure)} failed ·{' '}
          {fmtNumber(now.calls.rejected)} rejected
        </div>
        <div className="range" data-testid="calls-total">
          {rangeLabel}: <b data-testid="calls-per-minute-range">{rate(h)}</b>/min over{' '}
          {fmtSeconds(h.dataSeconds)} since the first call · {fmtNumber(h.calls.total)} calls ·{' '}
          {fmtNumber(h.calls.failure)} failed
        </div>
      </div>
      <div className="panel card" data-testid="card-breakers">
        <div className="label">Open breakers · now</div>
        <div className={`value ${h.openBreakers > 0 ? 'bad' : 'good'}`} data-testid="open-breakers">
          {h.openBreakers}
        </div>
        <div className="sub">circuit breakers open now</div>
      </div>
      <div className="panel card" data-testid="card-wasted">
        <div className="label">Wasted retries · {nowLabel}</div>
        <div className="value" data-testid="wasted-now">
          {fmtNumber(now.wastedRetries)}
        </div>
        <div className="sub" data-testid="wasted-time-now">
          {fmtSeconds(now.wastedRetryTimeSeconds)} in failed retries and their waits, summed across calls
        </div>
        <div className="range">
          {rangeLabel}: <b data-testid="wasted-retries">{fmtNumber(h.wastedRetries)}</b> ·{' '}
          {fmtSeconds(h.wastedRetryTimeSeconds)}
        </div>
      </div>
      <div className="panel card" data-testid="card-mttf">
        <div className="label">MTTF non-retryable · {nowLabel}</div>
        <div className="value" data-testid="mttf">
          {fmtSeconds(now.mttfNonRetryableSeconds)}
        </div>
        <div className="sub">mean time to fail when retrying is useless</div>
        <div className="range" data-testid="mttf-range">
          {rangeLabel}: <b>{fmtSeconds(h.mttfNonRetryableSeconds)}</b>
        </div>
      </div>
      <div className="panel card" data-testid="card-model-retries">
        <div className="label">Model retries avoided · {nowLabel}</div>
        <div className="value good" data-testid="model-retries-avoided">
          {fmtNumber(now.modelRetries.avoided)}
        </div>
        <div className="sub" data-testid="model-retries-saved">
          {fmtSeconds(now.modelRetries.savedSeconds)} saved
          {now.modelRetries.savedCost !== null
            ? ` · ${fmtNumber(now.modelRetries.savedCost, 2)} cost saved`
            : ''}
        </div>
        <div className="range" data-testid="model-retries-range">
          {rangeLabel}: <b>{fmtNumber(h.modelRetries.avoided)}</b> avoided ·{' '}
          {fmtSeconds(h.modelRetries.savedSeconds)} saved
          {h.modelRetries.savedCost !== null ? ` · ${fmtNumber(h.modelRetries.savedCost, 2)} cost` : ''}
        </div>
      </div>
    </div>
  );
}
