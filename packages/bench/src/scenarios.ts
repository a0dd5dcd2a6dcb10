import { seededRandom } from '@mcp-resilience/middleware/testing';
import { FAULTS, type FaultKind } from './faults.js';
import { LONE_AGENT_SCENARIOS } from './loneAgent.js';
import { hashUniform } from './prng.js';
import { type Capacity, validateCapacity } from './serverLoad.js';

/** What the endpoint does to every request sent while it is in this state. */
export type EndpointState =
  /** Every request fails with `fault` (the endpoint is down). */
  | { readonly kind: 'down'; readonly fault: FaultKind }
  /** Every request gets 429 with `Retry-After` = the seconds left in the window (rounded up). */
  | { readonly kind: 'rate_limited' }
  /**
   * The server has capacity but a share `rate` of requests fails with `fault` (a bad replica behind the balancer,
   * a flaky dependency). Which requests fail is a draw keyed by (seed, call, attempt), so a policy's k-th request
   * of a call meets the same draw whenever it is sent; the rate is the segment's.
   */
  | { readonly kind: 'brownout'; readonly rate: number; readonly fault: FaultKind };

/** [from, to) in milliseconds since the start of the run; outside every segment the endpoint is up. */
export interface Segment {
  readonly from: number;
  readonly to: number;
  readonly state: EndpointState;
}

/** One attempt's pre-drawn fate: how long a normal answer takes, and an independent transient fault, if any. */
export interface RecordedAttempt {
  readonly latencyMs: number;
  readonly noise?: FaultKind;
}

/** One logical call: when it arrives, its own permanent fault (bad arguments, bad token), and its attempts' draws. */
export interface RecordedCall {
  readonly id: number;
  readonly at: number;
  readonly intrinsic?: FaultKind;
  /** The k-th request this call puts on the wire uses `attempts[k - 1]`, whatever the policy. */
  readonly attempts: readonly RecordedAttempt[];
}

/** A recorded fault sequence: replayed unchanged for every policy. */
export interface Sequence {
  readonly scenario: string;
  readonly seed: number;
  readonly durationMs: number;
  /** The call's limit: the caller's deadline, or, without one, only the oracle's limit (see ScenarioSpec). */
  readonly deadlineMs: number;
  /** The caller sets no deadline: policies get no signal that aborts and no `timeoutMs`. */
  readonly withoutDeadline?: boolean;
  /** One sequential agent: calls run one after another, `thinkMs` apart (`calls[i].at` is then nominal). */
  readonly agent?: LoneAgent;
  readonly segments: readonly Segment[];
  readonly calls: readonly RecordedCall[];
  /** A server of finite capacity (the overload scenario): requests beyond it are rejected, see serverLoad.ts. */
  readonly capacity?: Capacity;
  /** Periods with another arrival rate (a load spike), as recorded. */
  readonly load?: readonly LoadPhase[];
}

/** From `from` to `to` (ms), calls arrive every `callEveryMs` instead of the scenario's base interval. */
export interface LoadPhase {
  readonly from: number;
  readonly to: number;
  readonly callEveryMs: number;
}

export type Weights = Partial<Record<FaultKind, number>>;

/**
 * One agent calling one tool at a time: it thinks `thinkMs` after each answer (success or error) before its next
 * call, and starts no call after the scenario's duration. `shape` says which targets apply: `dead` (the server is
 * down for most of the window) or `recovering` (blips, short outages).
 */
export interface LoneAgent {
  readonly thinkMs: number;
  readonly shape: 'dead' | 'recovering';
}

export interface ScenarioSpec {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly durationMs: number;
  readonly callEveryMs: number;
  /**
   * The caller's deadline per call. With `withoutDeadline`, the caller sets none, and this is only the limit of the
   * oracle (how long a call may usefully wait: it waits only when the endpoint is back within it).
   */
  readonly deadlineMs: number;
  readonly withoutDeadline?: boolean;
  /** One sequential agent instead of arrivals every `callEveryMs` (which is then the nominal interval). */
  readonly agent?: LoneAgent;
  /** Per call: probability of each permanent fault. */
  readonly intrinsic: Weights;
  /** Per attempt, independently: probability of each transient fault while the endpoint is up. */
  readonly noise: Weights;
  /** The endpoint's timeline. */
  readonly segments: (random: () => number) => Segment[];
  /** A server of finite capacity, shared by all calls of a run (requests beyond it get 503s). */
  readonly capacity?: Capacity;
  /** Load spikes: other arrival intervals during these periods. */
  readonly load?: readonly LoadPhase[];
}

/** Attempts recorded per call; more than any policy here makes (p-retry's default is 11). */
export const RECORDED_ATTEMPTS = 16;

/** The non-retryable share of production tool failures: ~73% of failures (design §1), i.e. 7.3% of calls. */
export const PRODUCTION_INTRINSIC: Weights = {
  invalid_argument_400: 0.035,
  invalid_params_32602: 0.02,
  unauthorized_401: 0.008,
  forbidden_403: 0.005,
  not_found_404: 0.005,
};

/** Independent transient faults per attempt on a healthy endpoint (a bad replica, a reset connection...). */
export const PRODUCTION_NOISE: Weights = {
  unavailable_503_html: 0.003,
  bad_gateway_502: 0.003,
  internal_500: 0.003,
  connection_reset: 0.003,
  connection_refused: 0.002,
  timeout: 0.004,
};

const total = (weights: Weights) => Object.values(weights).reduce((a, b) => a + b, 0);
const pctOf = (x: number) => `${Number((100 * x).toFixed(2))}%`;

const uniform = (random: () => number, min: number, max: number) => min + random() * (max - min);

/** Short rate-limit windows (1 s) every 100-200 s: the 429s of a normal day. */
function rateLimitWindows(random: () => number, from: number, to: number): Segment[] {
  const segments: Segment[] = [];
  for (
    let t = from + uniform(random, 20_000, 120_000);
    t + 1_000 < to;
    t += uniform(random, 100_000, 200_000)
  ) {
    segments.push({ from: Math.round(t), to: Math.round(t) + 1_000, state: { kind: 'rate_limited' } });
  }
  return segments;
}

/** Alternating up/down periods between `from` and `to`: up `up` ms, then down `down` ms (uniform ranges). */
export function flapping(
  random: () => number,
  from: number,
  to: number,
  up: readonly [number, number] = [3_000, 12_000],
  down: readonly [number, number] = [2_000, 6_000],
): Segment[] {
  const segments: Segment[] = [];
  let t = from;
  while (t < to) {
    t += uniform(random, up[0], up[1]);
    const length = uniform(random, down[0], down[1]);
    if (t + length > to) break;
    const fault: FaultKind = random() < 0.6 ? 'unavailable_503_html' : 'connection_reset';
    segments.push({ from: Math.round(t), to: Math.round(t + length), state: { kind: 'down', fault } });
    t += length;
  }
  return segments;
}

/** Blips of 100-800 ms every 3-10 s. */
function blips(random: () => number, from: number, to: number): Segment[] {
  const segments: Segment[] = [];
  for (let t = from + uniform(random, 3_000, 10_000); t < to; t += uniform(random, 3_000, 10_000)) {
    const length = uniform(random, 100, 800);
    const r = random();
    const fault: FaultKind =
      r < 0.5 ? 'bad_gateway_502' : r < 0.8 ? 'connection_reset' : 'connection_refused';
    segments.push({ from: Math.round(t), to: Math.round(t + length), state: { kind: 'down', fault } });
    t += length;
  }
  return segments;
}

/** A quota that keeps running out: 429 windows of 3-8 s with short openings of 1-3 s in between. */
function rateLimitStorm(random: () => number, from: number, to: number): Segment[] {
  const segments: Segment[] = [];
  let t = from;
  while (t < to) {
    const length = uniform(random, 3_000, 8_000);
    segments.push({
      from: Math.round(t),
      to: Math.round(Math.min(to, t + length)),
      state: { kind: 'rate_limited' },
    });
    t += length + uniform(random, 1_000, 3_000);
  }
  return segments;
}

/** Outages of `length` ms (uniform range) starting near each of `starts` (± 5 s). */
export function outages(
  random: () => number,
  starts: readonly number[],
  length: readonly [number, number],
): Segment[] {
  return starts.map((start) => {
    const from = Math.round(start + uniform(random, -5_000, 5_000));
    const fault: FaultKind = random() < 0.5 ? 'connection_reset' : 'bad_gateway_502';
    return {
      from,
      to: Math.round(from + uniform(random, length[0], length[1])),
      state: { kind: 'down', fault },
    };
  });
}

/** A brownout from `from` to `to`: every `stepMs` a new failure rate in [min, max], 503 HTML or 502. */
export function brownout(
  random: () => number,
  from: number,
  to: number,
  stepMs: number,
  rate: readonly [number, number],
): Segment[] {
  const segments: Segment[] = [];
  for (let t = from; t < to; t += stepMs) {
    const fault: FaultKind = random() < 0.6 ? 'unavailable_503_html' : 'bad_gateway_502';
    segments.push({
      from: t,
      to: Math.min(to, t + stepMs),
      state: { kind: 'brownout', rate: uniform(random, rate[0], rate[1]), fault },
    });
  }
  return segments;
}

const MINUTE = 60_000;
const common = { callEveryMs: 100, deadlineMs: 30_000, intrinsic: PRODUCTION_INTRINSIC } as const;
/** The incident shapes of issue #11's "Why": 5 calls/s, 30 s deadlines. */
const incident = { ...common, callEveryMs: 200 } as const;

/** The overload scenario's server: 20 requests/s; a rejection costs half of a request's work and 250 ms. */
export const OVERLOAD_CAPACITY: Capacity = { requestsPerSecond: 20, rejectCost: 0.5, rejectLatencyMs: 250 };
/** The overload scenario's load spike: 12.5 calls/s, then 30 calls/s from 60 s to 80 s, then 12.5 calls/s again. */
export const OVERLOAD_SPIKE: LoadPhase = { from: 60_000, to: 80_000, callEveryMs: 33 };

export const SCENARIOS: readonly ScenarioSpec[] = [
  {
    ...common,
    key: 'production',
    name: 'production mix',
    description:
      `10 min, healthy endpoint. ${pctOf(total(PRODUCTION_INTRINSIC))} of calls carry a permanent fault (400 invalid argument, -32602, 401, 403, 404); ` +
      `${pctOf(total(PRODUCTION_NOISE))} of requests meet an independent transient fault (503 HTML, 502, 500, ECONNRESET, ECONNREFUSED, 10 s timeout); ` +
      '1 s rate-limit windows (429 + Retry-After) every 100-200 s.',
    durationMs: 10 * MINUTE,
    noise: PRODUCTION_NOISE,
    segments: (random) => rateLimitWindows(random, 0, 10 * MINUTE),
  },
  {
    ...common,
    key: 'outage',
    name: 'hard 60 s outage',
    description:
      '5 min; the server is down from 60 s to 120 s (connection refused). The permanent faults of the production mix, no other noise.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: () => [{ from: MINUTE, to: 2 * MINUTE, state: { kind: 'down', fault: 'connection_refused' } }],
  },
  {
    ...common,
    key: 'ratelimit',
    name: 'rate-limit storm',
    description:
      '5 min; from 60 s to 180 s the quota keeps running out: 429 windows of 3-8 s (Retry-After = seconds left) with 1-3 s openings.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => rateLimitStorm(random, MINUTE, 3 * MINUTE),
  },
  {
    ...common,
    key: 'flapping',
    name: 'flapping endpoint',
    description:
      '5 min; from 30 s to 270 s the endpoint is up 3-12 s, then down 2-6 s (503 HTML or ECONNRESET), again and again.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => flapping(random, 30_000, 270_000),
  },
  {
    ...common,
    key: 'blips',
    name: 'short blips',
    description: '5 min; every 3-10 s the endpoint fails for 100-800 ms (502, ECONNRESET or ECONNREFUSED).',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => blips(random, 0, 5 * MINUTE),
  },
  {
    ...common,
    key: 'mixed',
    name: 'mixed day',
    description:
      '20 min of production mix, plus blips (1-5 min), a 45 s outage at 6:40 (503 HTML), flapping (10-13 min) and a rate-limit storm (15-16:40).',
    durationMs: 20 * MINUTE,
    noise: PRODUCTION_NOISE,
    segments: (random) => [
      ...rateLimitWindows(random, 0, 20 * MINUTE).filter((s) => s.to < 6 * MINUTE || s.from > 17 * MINUTE),
      ...blips(random, MINUTE, 5 * MINUTE),
      { from: 400_000, to: 445_000, state: { kind: 'down', fault: 'unavailable_503_html' } },
      ...flapping(random, 10 * MINUTE, 13 * MINUTE),
      ...rateLimitStorm(random, 15 * MINUTE, 1_000_000),
    ],
  },
  {
    ...incident,
    key: 'outage90',
    name: '90 s outage',
    description:
      '5 min at 5 calls/s; the endpoint answers 503 (proxy HTML page) from 60 s to 150 s. The permanent faults of the production mix, no other noise.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: () => [{ from: MINUTE, to: 150_000, state: { kind: 'down', fault: 'unavailable_503_html' } }],
  },
  {
    ...incident,
    key: 'flapfast',
    name: 'flapping, up 5-11 s / down 2-4 s',
    description:
      '5 min at 5 calls/s; from 30 s to 270 s the endpoint is up 5-11 s, then down 2-4 s (503 HTML or ECONNRESET), again and again.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => flapping(random, 30_000, 270_000, [5_000, 11_000], [2_000, 4_000]),
  },
  {
    ...incident,
    key: 'twooutages',
    name: 'two outages of 12-15 s',
    description:
      '5 min at 5 calls/s; two outages of 12-15 s (ECONNRESET or 502), near 60 s and near 150 s (± 5 s).',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => outages(random, [MINUTE, 150_000], [12_000, 15_000]),
  },
  {
    ...incident,
    key: 'brownout',
    name: 'brownout 30-50%',
    description:
      '5 min at 5 calls/s on a server with spare capacity; from 30 s to 270 s, 30-50% of requests (a new rate every 15 s) fail with a 503 HTML page or a 502, independently.',
    durationMs: 5 * MINUTE,
    noise: {},
    segments: (random) => brownout(random, 30_000, 270_000, 15_000, [0.3, 0.5]),
  },
  {
    ...common,
    callEveryMs: 80,
    key: 'overload',
    name: 'overload spike',
    description: `5 min; a server of ${OVERLOAD_CAPACITY.requestsPerSecond} requests/s: beyond it, requests get a 503 after ${OVERLOAD_CAPACITY.rejectLatencyMs} ms and each rejection still costs ${OVERLOAD_CAPACITY.rejectCost} of a request's work. 12.5 calls/s (62% of the capacity), ${Math.round(1000 / OVERLOAD_SPIKE.callEveryMs)} calls/s from ${OVERLOAD_SPIKE.from / 1000} s to ${OVERLOAD_SPIKE.to / 1000} s.`,
    durationMs: 5 * MINUTE,
    noise: {},
    segments: () => [],
    capacity: OVERLOAD_CAPACITY,
    load: [OVERLOAD_SPIKE],
  },
  ...LONE_AGENT_SCENARIOS,
];

/** Sorted, and a segment that overlaps an earlier one is dropped. */
function withoutOverlaps(segments: readonly Segment[]): Segment[] {
  const kept: Segment[] = [];
  for (const s of [...segments].sort((a, b) => a.from - b.from)) {
    const last = kept[kept.length - 1];
    if (s.to > s.from && (!last || s.from >= last.to)) kept.push(s);
  }
  return kept;
}

/** Picks a fault from `weights` with one uniform draw, or none. */
function pick(weights: Weights, u: number): FaultKind | undefined {
  let acc = 0;
  for (const [kind, p] of Object.entries(weights) as [FaultKind, number][]) {
    acc += p;
    if (u < acc) return kind;
  }
  return undefined;
}

/** A normal answer's latency: log-normal around 180 ms, within [40, 2500] ms. */
function latency(random: () => number): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.round(Math.min(2_500, Math.max(40, 180 * Math.exp(0.45 * z))));
}

function scenarioSalt(key: string): number {
  let h = 2166136261;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** Records a scenario's fault sequence: the same seed gives the same sequence, byte for byte. */
export function recordSequence(spec: ScenarioSpec, seed: number): Sequence {
  const random = seededRandom((seed ^ scenarioSalt(spec.key)) >>> 0);
  const segments = withoutOverlaps(spec.segments(random));
  const calls: RecordedCall[] = [];
  if (spec.capacity) validateCapacity(spec.capacity);
  // A lone agent makes at most one call per think time: record that many (their `at` is nominal).
  const interval = (at: number) => (spec.agent ? spec.agent.thinkMs : arrivalInterval(spec, at));
  for (let id = 0, at = 0; at < spec.durationMs; id++, at += interval(at)) {
    const intrinsic = pick(spec.intrinsic, random());
    const attempts: RecordedAttempt[] = [];
    for (let k = 0; k < RECORDED_ATTEMPTS; k++) {
      const latencyMs = latency(random);
      const noise = pick(spec.noise, random());
      attempts.push(noise ? { latencyMs, noise } : { latencyMs });
    }
    calls.push(intrinsic ? { id, at, intrinsic, attempts } : { id, at, attempts });
  }
  return {
    scenario: spec.key,
    seed,
    durationMs: spec.durationMs,
    deadlineMs: spec.deadlineMs,
    ...(spec.withoutDeadline ? { withoutDeadline: true } : {}),
    ...(spec.agent ? { agent: spec.agent } : {}),
    segments,
    calls,
    ...(spec.capacity ? { capacity: spec.capacity } : {}),
    ...(spec.load ? { load: spec.load } : {}),
  };
}

/** The interval to the next arrival after one at `at`: the load phase's in force, else the base interval. */
export function arrivalInterval(spec: Pick<ScenarioSpec, 'callEveryMs' | 'load'>, at: number): number {
  const phase = spec.load?.find((p) => at >= p.from && at < p.to);
  const interval = phase?.callEveryMs ?? spec.callEveryMs;
  if (!(interval > 0)) throw new Error(`callEveryMs must be > 0, got ${interval}`);
  return interval;
}

/** The uniform draw that decides whether the k-th request of a call fails in a brownout. */
export function brownoutDraw(seed: number, callId: number, k: number): number {
  return hashUniform(seed, callId, k, 0xb1);
}

/** The segment in force at `t`, if any (segments are sorted and do not overlap). */
export function segmentAt(sequence: Sequence, t: number): Segment | undefined {
  const s = sequence.segments;
  let lo = 0;
  let hi = s.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const seg = s[mid]!;
    if (t < seg.from) hi = mid - 1;
    else if (t >= seg.to) lo = mid + 1;
    else return seg;
  }
  return undefined;
}

/** What one request does. */
export type AttemptResult =
  | { readonly ok: true; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly fault: FaultKind;
      readonly transient: boolean;
      readonly latencyMs: number;
      /** Whether the endpoint was down (not merely rate limiting) when the request arrived. */
      readonly down: boolean;
      readonly retryAfterS?: number;
    };

/**
 * The fate of the `k`-th request (1-based) of `call`, sent at `t` ms since the start: the endpoint's state first
 * (down, rate limited), then the attempt's independent transient fault, then the call's own permanent fault.
 * Pure: the same inputs give the same answer, for every policy and for the oracle.
 */
export function evaluate(sequence: Sequence, call: RecordedCall, k: number, t: number): AttemptResult {
  // Beyond the recorded attempts (a call whose requests were its breaker's probes, which cost it no attempt, can
  // send more), the last recorded one's draws repeat: the sequences, and every policy's earlier requests, stay the same.
  const attempt = call.attempts[Math.min(k, call.attempts.length) - 1];
  if (!attempt) throw new Error(`call ${call.id}: no recorded attempt (of ${RECORDED_ATTEMPTS})`);
  const segment = segmentAt(sequence, t);
  const fail = (fault: FaultKind, down: boolean, retryAfterS?: number): AttemptResult => ({
    ok: false,
    fault,
    transient: FAULTS[fault].transient,
    latencyMs: FAULTS[fault].latencyMs(attempt.latencyMs),
    down,
    ...(retryAfterS === undefined ? {} : { retryAfterS }),
  });
  if (segment?.state.kind === 'down') return fail(segment.state.fault, true);
  if (segment?.state.kind === 'rate_limited') {
    return fail('rate_limited_429', false, Math.max(1, Math.ceil((segment.to - t) / 1000)));
  }
  if (segment?.state.kind === 'brownout' && brownoutDraw(sequence.seed, call.id, k) < segment.state.rate) {
    return fail(segment.state.fault, false);
  }
  if (attempt.noise) return fail(attempt.noise, false);
  if (call.intrinsic) return fail(call.intrinsic, false);
  return { ok: true, latencyMs: attempt.latencyMs };
}
