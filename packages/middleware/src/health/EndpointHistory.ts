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

  /** When the running failure streak began; undefined when none runs. */
  get streakStart(): number | undefined {
    return this.failingSince;
  }

  /** How long the past streaks (outages) lasted, oldest first. */
  get outages(): readonly number[] {
    return this.recoveries;
  }

  /** Outages learned elsewhere (a shared store): appended, the oldest dropped beyond the size. */
  adoptOutages(outages: readonly number[]): void {
    for (const r of outages) if (Number.isFinite(r) && r >= 0) this.recoveries.push(r);
    if (this.recoveries.length > this.size) this.recoveries.splice(0, this.recoveries.length - this.size);
  }

  /** A failure that says the endpoint is unhealthy: it starts a streak, unless one is running. */
  onFailure(now: number): void {
    this.failingSince ??= now;
  }

  /**
   * A success of an attempt that started after the streak began ends the streak and remembers how long it lasted
   * (an attempt sent before the streak says nothing about its end); `durationMs`, when known, feeds the latency.
   */
  onSuccess(now: number, attemptStart: number, durationMs: number | undefined): void {
    if (this.failingSince !== undefined && attemptStart >= this.failingSince) {
      this.recoveries.push(now - this.failingSince);
      if (this.recoveries.length > this.size) this.recoveries.shift();
      this.failingSince = undefined;
    }
    if (durationMs === undefined) return;
    this.latencyMs = this.latencyMs === undefined ? durationMs : 0.8 * this.latencyMs + 0.2 * durationMs;
  }

  /**
   * How long, from `now`, until the running streak usually ends: the median end of the past streaks that lasted
   * longer than this one has so far (a streak already past every blip is waited out like the longer outages
   * were). 0 when there is no running streak, or no past streak lasted this long.
   */
  expectedRecoveryMs(now: number): number {
    if (this.failingSince === undefined) return 0;
    const elapsed = now - this.failingSince;
    const longer = this.recoveries.filter((r) => r > elapsed).sort((x, y) => x - y);
    if (longer.length === 0) return 0;
    return longer[Math.floor((longer.length - 1) / 2)]! - elapsed;
  }

  /** The fleet says the outage began at `start`: the running streak is at least that old. */
  adoptStreakStart(start: number): void {
    this.failingSince = Math.min(this.failingSince ?? start, start);
  }

  /** The fleet saw an outage end (another replica's probe): its length joins the history; no streak runs. */
  adoptRecovery(lengthMs: number): void {
    this.failingSince = undefined;
    this.recoveries.push(lengthMs);
    if (this.recoveries.length > this.size) this.recoveries.shift();
  }

  /** A successful attempt's usual duration (moving average); 0 when unknown. */
  expectedLatencyMs(): number {
    return this.latencyMs ?? 0;
  }
}
