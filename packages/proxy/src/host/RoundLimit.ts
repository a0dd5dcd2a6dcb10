/**
 * The bound on `input_required` rounds awaiting a host's repeat, shared by every server of a gateway: each round
 * the proxy hands a host takes a slot until it is repeated, expires or its call ends. Beyond `max`, the
 * upstream's request is refused (`-32603`, naming the limit) rather than held.
 */
export class RoundLimit {
  private used = 0;

  constructor(
    readonly max: number,
    /** The option that sets `max`, named in the refusal. */
    readonly option = 'maxInputRounds',
  ) {
    if (!Number.isInteger(max) || max <= 0) {
      throw new TypeError(`${option} must be a positive integer, got ${max}`);
    }
  }

  /** The rounds now held. */
  get held(): number {
    return this.used;
  }

  /** Takes a slot: `false` when all `max` are held. */
  take(): boolean {
    if (this.used >= this.max) return false;
    this.used += 1;
    return true;
  }

  /** Gives back a slot taken with {@link take}. */
  give(): void {
    if (this.used > 0) this.used -= 1;
  }
}
