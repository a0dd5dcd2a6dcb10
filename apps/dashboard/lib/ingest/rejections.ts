import type { Rejected } from './records';

const MAX_REASONS = 5;
/** Characters of an offending value (a name, a key) shown in a reason. */
export const SHOWN_CHARS = 64;

/**
 * A value as a reason shows it: at most `SHOWN_CHARS` characters, then `…`. Reasons are built from shown values
 * only, so a 1 MB metric name on 50,000 points costs one cut, not 50,000 copies and comparisons.
 */
export const shown = (s: string): string => (s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);

/**
 * Counts what was not taken and keeps the first few distinct reasons (for `errorMessage`). Callers build
 * reasons from `shown` values, so each is short.
 */
export class Rejections {
  count = 0;
  private readonly reasons: string[] = [];

  add(n: number, reason: string): void {
    if (n <= 0) return;
    this.count += n;
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(reason)) this.reasons.push(reason);
  }

  result(): Rejected {
    return { count: this.count, reasons: [...this.reasons] };
  }
}
