/**
 * What an endpoint's own past says about its next attempt: how long its failure streaks took to end (the
 * adaptive backoff waits at least that long into a streak) and how long an attempt usually takes (a retry that
 * cannot finish before the deadline is not started).
 */
export class EndpointHistory {
  private readonly recoveries: number[] = [];
  private failingSince: number | undefined;
  private latencyMs: number | undefined;

  constructor(private readonly size: number) {}

  /** A failure that says the endpoint is unhealthy: it starts a streak, unless one is running. */
  onFailure(now: number): void {
    this.failingSince ??= now;
  }

  /** A success ends the streak and remembers how long it lasted; `durationMs`, when known, feeds the latency. */
  onSuccess(now: number, durationMs: number | undefined): void {
    if (this.failingSince !== undefined) {
      this.recoveries.push(now - this.failingSince);
      if (this.recoveries.length > this.size) this.recoveries.shift();
      this.failingSince = undefined;
    }
    if (durationMs === undefined) return;
    this.latencyMs = this.latencyMs === undefined ? durationMs : 0.8 * this.latencyMs + 0.2 * durationMs;
  }

  /** How long, from `now`, until the running streak usually ends (the median of past streaks); 0 when unknown. */
  expectedRecoveryMs(now: number): number {
    if (this.failingSince === undefined || this.recoveries.length === 0) return 0;
    const sorted = [...this.recoveries].sort((x, y) => x - y);
    const typical = sorted[Math.floor((sorted.length - 1) / 2)]!;
    return Math.max(0, this.failingSince + typical - now);
  }

  /** A successful attempt's usual duration (moving average); 0 when unknown. */
  expectedLatencyMs(): number {
    return this.latencyMs ?? 0;
  }
}
