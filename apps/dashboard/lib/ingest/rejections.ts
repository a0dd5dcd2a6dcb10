import type { Rejected } from './records';

const MAX_REASONS = 5;

/** Counts what was not taken and keeps the first few distinct reasons (for `errorMessage`). */
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
