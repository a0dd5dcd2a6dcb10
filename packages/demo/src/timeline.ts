/** One act of the demo's story, in story time (milliseconds from the start of a cycle). */
export interface Phase {
  readonly name: 'normal' | 'outage' | 'rate_limit_storm' | 'flapping' | 'bad_arguments';
  readonly from: number;
  readonly to: number;
  readonly story: string;
}

/** The story repeats every five minutes of story time. */
export const CYCLE_MS = 300_000;

export const PHASES: readonly Phase[] = [
  {
    name: 'normal',
    from: 0,
    to: 60_000,
    story: 'normal traffic: the usual production mix, mostly bad arguments and auth',
  },
  {
    name: 'outage',
    from: 60_000,
    to: 120_000,
    story: "the 'tickets' server is down: its breaker opens, probes, closes",
  },
  {
    name: 'rate_limit_storm',
    from: 120_000,
    to: 170_000,
    story: "the 'search' server rate-limits: 429 with Retry-After",
  },
  { name: 'flapping', from: 170_000, to: 230_000, story: "the 'tickets' server flaps up and down" },
  { name: 'bad_arguments', from: 230_000, to: 270_000, story: 'a wave of bad arguments from the agents' },
  { name: 'normal', from: 270_000, to: CYCLE_MS, story: 'back to normal' },
];

/** The phase at `elapsedMs` of wall time since the start, with time compressed `speed` times. */
export function phaseAt(elapsedMs: number, speed: number): Phase {
  const storyMs = (elapsedMs * speed) % CYCLE_MS;
  return PHASES.find((p) => storyMs >= p.from && storyMs < p.to) ?? PHASES[0]!;
}
