'use client';

import type { Headline } from '@/lib/data/types';
import {
  efficiencyVerdict,
  fmtNumber,
  fmtPct,
  fmtSeconds,
  MIN_RETRIES_FOR_EFFICIENCY,
  TARGET_EFFICIENCY,
} from '@/lib/format';
import { useLive } from '../live/live-provider';

/** The KPI strip; numbers are replaced by the live `headline` events of the SSE stream. */
export default function HeadlineCards({ initial }: { initial: Headline }) {
  const live = useLive().headline;
  const h = live && live.to >= initial.to ? live : initial;
  const { ratio, sufficient, meetsTarget } = efficiencyVerdict(h.retries.successful, h.retries.total);
  return (
    <div className="grid cards">
      <div className="panel card" data-testid="card-efficiency">
        <div className="label">Retry efficiency</div>
        <div
          className={`value ${meetsTarget === null ? 'muted' : meetsTarget ? 'good' : 'bad'}`}
          data-testid="efficiency-value"
        >
          {sufficient ? fmtPct(ratio) : 'insufficient data'}
        </div>
        <div className="sub" data-testid="efficiency-ratio">
          {fmtNumber(h.retries.successful)}/{fmtNumber(h.retries.total)} retries successful · target{' '}
          {TARGET_EFFICIENCY}
          {!sufficient && ` · needs ${MIN_RETRIES_FOR_EFFICIENCY}`}
        </div>
      </div>
      <div className="panel card" data-testid="card-calls">
        <div className="label">Calls per minute</div>
        <div className="value" data-testid="calls-per-minute">
          {fmtNumber(h.callsPerMinute, h.callsPerMinute < 10 ? 2 : 0)}
        </div>
        <div className="sub" data-testid="calls-total">
          {fmtNumber(h.calls.total)} calls · {fmtNumber(h.calls.failure)} failed ·{' '}
          {fmtNumber(h.calls.rejected)} rejected
        </div>
      </div>
      <div className="panel card" data-testid="card-breakers">
        <div className="label">Open breakers</div>
        <div className={`value ${h.openBreakers > 0 ? 'bad' : 'good'}`} data-testid="open-breakers">
          {h.openBreakers}
        </div>
        <div className="sub">circuit breakers currently open</div>
      </div>
      <div className="panel card" data-testid="card-wasted">
        <div className="label">Wasted retry cost</div>
        <div className="value" data-testid="wasted-retries">
          {fmtNumber(h.wastedRetries)}
        </div>
        <div className="sub">failed retries · {fmtSeconds(h.wastedRetryTimeSeconds)} spent in them</div>
      </div>
      <div className="panel card" data-testid="card-mttf">
        <div className="label">MTTF non-retryable</div>
        <div className="value" data-testid="mttf">
          {fmtSeconds(h.mttfNonRetryableSeconds)}
        </div>
        <div className="sub">mean time to fail when retrying is useless</div>
      </div>
    </div>
  );
}
