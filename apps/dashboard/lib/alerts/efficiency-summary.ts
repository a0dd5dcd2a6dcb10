import type { AlertRule } from './rule';
import { coversWindow, dataSince, fmtSpan, windowSpan } from './window-span';

const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;

export interface EfficiencyReading {
  readonly server: string;
  /** Over the long window; NaN with no retries. */
  readonly longEff: number;
  /** Over the short window; NaN with no retries. */
  readonly shortEff: number;
  /** Retries in the long window. */
  readonly retries: number;
  /** When the server's data begins (null: unknown). */
  readonly dataStart: number | null | undefined;
}

/**
 * The efficiency alert's sentence: the long window's value and span, then the short window's. When the data
 * began inside the short window too, both read the same data: one value, one span, not the same twice.
 */
export function efficiencySummary(rule: AlertRule, r: EfficiencyReading, now: number): string {
  if (Number.isNaN(r.longEff)) return `No retries for ${r.server}`;
  const head = `Retry efficiency for ${r.server} is ${pct(r.longEff)} over`;
  const tail = `${r.retries} retries; target ${pct(rule.threshold)}`;
  if (r.dataStart != null && !coversWindow(rule.shortWindowMs, r.dataStart, now)) {
    return `${head} ${fmtSpan(now - r.dataStart)} (${dataSince(r.dataStart)}; ${tail})`;
  }
  const long = windowSpan(rule.longWindowMs, r.dataStart, now);
  const short = windowSpan(rule.shortWindowMs, r.dataStart, now, { since: false });
  return `${head} ${long} (${pct(Number.isNaN(r.shortEff) ? 0 : r.shortEff)} over ${short}; ${tail})`;
}
