import type { CallRow } from '@/lib/data/types';
import { fmtMs } from '@/lib/format';

/** Attempts on the call's time axis: bars for attempts, dashes for the backoff waits between them. */
export default function Waterfall({ call }: { call: CallRow }) {
  const span = Math.max(1, call.durationMs);
  const left = (t: number) => `${Math.max(0, Math.min(100, ((t - call.startMs) / span) * 100))}%`;
  const width = (d: number) => `${Math.max(0.5, Math.min(100, (d / span) * 100))}%`;
  return (
    <div className="waterfall">
      {call.message ? (
        <div className="muted" style={{ fontSize: 12, marginBottom: 4 }}>
          {call.message}
        </div>
      ) : null}
      {call.attemptRows.length === 0 ? (
        <div className="muted" style={{ fontSize: 12 }}>
          No attempt spans stored for this call
          {call.outcome === 'rejected' ? ' (rejected before any attempt)' : ''}.
        </div>
      ) : (
        call.attemptRows.map((a, i) => {
          const prev = call.attemptRows[i - 1];
          const waitStart = prev ? prev.startMs + prev.durationMs : undefined;
          return (
            <div
              key={`${a.attempt}-${a.startMs}-${a.durationMs}`}
              className="wf-row"
              data-testid="attempt-row"
            >
              <span>#{a.attempt}</span>
              <div className="wf-track">
                {waitStart !== undefined && a.startMs > waitStart ? (
                  <div
                    className="wf-wait"
                    style={{ left: left(waitStart), width: width(a.startMs - waitStart) }}
                  />
                ) : null}
                <div
                  className={`wf-bar${a.ok ? '' : ' fail'}`}
                  style={{ left: left(a.startMs), width: width(a.durationMs) }}
                />
              </div>
              <span>
                {fmtMs(a.durationMs)} ·{' '}
                {a.ok ? (
                  <span className="good">ok</span>
                ) : (
                  <>
                    <b>{a.errorType || 'error'}</b> <span className="muted">({a.errorClass || '?'})</span> →{' '}
                    {a.decision || '?'}
                    {a.delayMs > 0 ? ` after ${fmtMs(a.delayMs)}` : ''}
                    {a.giveUpReason ? ` (${a.giveUpReason})` : ''}
                  </>
                )}
                {a.message ? (
                  <span className="muted" title={a.message}>
                    {' '}
                    · {a.message.length > 60 ? `${a.message.slice(0, 60)}…` : a.message}
                  </span>
                ) : null}
              </span>
            </div>
          );
        })
      )}
      {call.attemptsOmitted > 0 ? (
        <div className="muted" style={{ fontSize: 12 }} data-testid="attempts-omitted">
          {call.attemptsOmitted.toLocaleString('en-US')} more attempt spans of this call are stored but not
          shown.
        </div>
      ) : null}
    </div>
  );
}
