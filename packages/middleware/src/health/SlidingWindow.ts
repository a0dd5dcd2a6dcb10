/**
 * Two counters (for example calls and failures) over a sliding time window, kept in `buckets` slices so that
 * memory is constant and old slices expire as time moves on.
 */
export class SlidingWindow {
  private readonly sliceMs: number;
  private readonly starts: number[];
  private readonly a: number[];
  private readonly b: number[];
  /** The slice being filled, cached so that most `add`s do no arithmetic. */
  private current = 0;
  private currentStart = Number.NEGATIVE_INFINITY;

  constructor(
    readonly windowMs: number,
    buckets = 10,
  ) {
    this.sliceMs = Math.max(1, Math.ceil(windowMs / buckets));
    this.starts = new Array(buckets).fill(Number.NEGATIVE_INFINITY);
    this.a = new Array(buckets).fill(0);
    this.b = new Array(buckets).fill(0);
  }

  /** Adds to the counters at time `now`. */
  add(now: number, a: number, b: number): void {
    if (now < this.currentStart || now >= this.currentStart + this.sliceMs) {
      const start = now - (now % this.sliceMs);
      const i = Math.floor(start / this.sliceMs) % this.starts.length;
      if (this.starts[i] !== start) {
        this.starts[i] = start;
        this.a[i] = 0;
        this.b[i] = 0;
      }
      this.current = i;
      this.currentStart = start;
    }
    this.a[this.current]! += a;
    this.b[this.current]! += b;
  }

  /** The two counters summed over the window that ends at `now`. */
  totals(now: number): { a: number; b: number } {
    let a = 0;
    let b = 0;
    for (let i = 0; i < this.starts.length; i++) {
      if (now - this.starts[i]! < this.windowMs) {
        a += this.a[i]!;
        b += this.b[i]!;
      }
    }
    return { a, b };
  }

  reset(): void {
    this.starts.fill(Number.NEGATIVE_INFINITY);
    this.currentStart = Number.NEGATIVE_INFINITY;
  }
}
