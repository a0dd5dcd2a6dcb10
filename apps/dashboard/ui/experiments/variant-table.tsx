import type { VariantView } from '@/lib/data/experiments';
import { fmtNumber, fmtPct, fmtSeconds } from '@/lib/format';
import IntervalBar from './interval-bar';

type Rate = VariantView['success'];

function RateCell({ rate, empty }: { rate: Rate; empty: string }) {
  if (!rate) return <td className="num muted">{empty}</td>;
  return (
    <td className="num">
      {fmtPct(rate.rate)}{' '}
      <span className="muted">
        [{fmtPct(rate.low)}–{fmtPct(rate.high)}]
      </span>
      <IntervalBar rate={rate.rate} low={rate.low} high={rate.high} />
    </td>
  );
}

const share = (x: number | null) => (x === null ? '–' : fmtPct(x));

/** The share of the calls that ran, and beside it the share of draws (ran + repeats answered from cache). */
function ShareCell({ v }: { v: VariantView }) {
  return (
    <td className="num" data-testid="variant-share" style={{ whiteSpace: 'nowrap' }}>
      {share(v.callShare)}{' '}
      <span className="muted" title={`${fmtNumber(v.avoided)} repeats answered from this variant's cache`}>
        (drawn {share(v.drawnShare)})
      </span>
    </td>
  );
}

/** Per variant: calls, their share, success rate and retry efficiency with 95% Wilson intervals, waste, MTTF, p95. */
export default function VariantTable({ variants }: { variants: VariantView[] }) {
  return (
    <table data-testid="experiment-variants">
      <caption className="muted" style={{ captionSide: 'bottom', textAlign: 'left' }}>
        Draws follow the split; a repeat answered from a variant's negative cache was drawn but did not run,
        and each variant caches only its own failures, so the smaller arm's share of calls that ran can be a
        little higher.
      </caption>
      <thead>
        <tr>
          <th>Variant</th>
          <th className="num">Calls</th>
          <th className="num">Share of calls (of draws)</th>
          <th className="num">Success rate (95% CI)</th>
          <th className="num">Retry efficiency (95% CI)</th>
          <th className="num">Wasted retries / 1,000 calls</th>
          <th className="num">MTTF non-retryable</th>
          <th className="num">p95 latency</th>
        </tr>
      </thead>
      <tbody>
        {variants.map((v) => (
          <tr key={v.variant} data-variant={v.variant}>
            <td style={{ whiteSpace: 'nowrap' }}>
              <b>{v.variant}</b>{' '}
              {v.control ? (
                <span className="badge" title="the control arm: every other variant is compared with it">
                  baseline
                </span>
              ) : null}
            </td>
            <td className="num">{fmtNumber(v.calls)}</td>
            <ShareCell v={v} />
            <RateCell rate={v.success} empty="–" />
            <RateCell rate={v.efficiency} empty={`insufficient data (${fmtNumber(v.retries)} retries)`} />
            <td className="num">
              {v.wastedPer1000Calls === null ? '–' : fmtNumber(v.wastedPer1000Calls, 1)}
            </td>
            <td className="num">{fmtSeconds(v.mttfNonRetryableSeconds)}</td>
            <td className="num">{fmtSeconds(v.p95Seconds)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
