import { type FaultKind, makeError } from './faults.js';
import { type AttemptResult, evaluate, type RecordedCall, type Sequence } from './scenarios.js';
import { createServerLoad, type ServerLoad } from './serverLoad.js';
import { EPOCH, onVirtualTime } from './virtualTime.js';

/** One request that reached the endpoint. Times in ms since the start of the run. */
export interface AttemptTrace {
  /** 1-based: the k-th request of its call. */
  readonly k: number;
  readonly start: number;
  end: number;
  ok: boolean;
  readonly fault?: FaultKind;
  /** Ground truth of the fault: could a later attempt succeed? */
  readonly transient?: boolean;
  /** Sent while the endpoint was down. */
  readonly down: boolean;
  /** Cut by the caller's signal before the endpoint answered. */
  aborted: boolean;
  /** Rejected by a server beyond its capacity (the overload scenario). */
  readonly overloaded?: boolean;
}

export interface CallTrace {
  readonly id: number;
  readonly start: number;
  /** When the caller got its answer (success, error, or its deadline). */
  end: number;
  ok: boolean;
  endedBy: 'success' | 'error' | 'deadline';
  /** What the caller got, in a few words (error name, `ResilienceError` reason...). */
  outcome: string;
  readonly attempts: AttemptTrace[];
}

export type Send = (signal?: AbortSignal) => Promise<string>;

export interface CallContext {
  /** Aborts at the call's deadline (never, when the caller sets none). */
  readonly signal: AbortSignal;
  /** Absolute (virtual epoch) time of the caller's deadline; absent when the caller sets none. */
  readonly deadline?: number;
  /**
   * Absolute time of the call's limit: the deadline, or without one the scenario's limit (only the oracle reads it:
   * it waits only when the endpoint is back within it).
   */
  readonly limit: number;
  readonly call: RecordedCall;
  readonly sequence: Sequence;
  /** The server's load, when the scenario has a finite capacity (only the oracle reads it). */
  readonly server?: ServerLoad;
}

export interface PolicyInstance {
  execute(send: Send, context: CallContext): Promise<unknown>;
  dispose?(): void;
  /** Policy-specific counters for the run (mcp-resilience: its breaker's transitions), read after the run. */
  report?(sequence: Sequence): Record<string, number>;
  /** When its breaker opened (ms since the start of the run), for policies that have one and say so. */
  opens?(): readonly number[];
}

export interface Policy {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /**
   * The policy can answer before its work ends (opossum's timeout rejects the call but does not stop the p-retry
   * loop inside it): the call's signal must still abort at the deadline after the answer, to stop that work.
   */
  readonly backgroundWork?: boolean;
  /** Called once per run, on virtual time: one instance serves every call of the run (shared breaker state). */
  create(): PolicyInstance;
}

export interface RunResult {
  readonly policy: string;
  readonly scenario: string;
  readonly calls: CallTrace[];
  readonly report: Record<string, number>;
  /** When the policy's breaker opened (ms since the start), if the policy says. */
  readonly opens?: readonly number[];
  readonly timersFired: number;
  readonly wallMs: number;
}

const rel = () => Date.now() - EPOCH;

/** Describes what a caller got, for the outcome breakdown. */
export function describeOutcome(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const e = error as { name?: unknown; reason?: unknown; code?: unknown; status?: unknown };
  if (e.name === 'ResilienceError' && typeof e.reason === 'string') return `ResilienceError(${e.reason})`;
  if (e.code === 'EOPENBREAKER') return 'opossum: breaker open';
  if (e.code === 'ETIMEDOUT' && e.name !== 'McpError') return 'opossum: timed out';
  const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
  const name =
    e.name === 'Error' && typeof ctor === 'string' && ctor !== 'Error'
      ? ctor
      : typeof e.name === 'string'
        ? e.name
        : 'Error';
  if (name === 'BrokenCircuitError') return 'cockatiel: circuit open';
  if (typeof e.status === 'number') return `${name} ${e.status}`;
  if (typeof e.code === 'number' || typeof e.code === 'string') return `${name} ${String(e.code)}`;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return `${name} (${cause.code})`;
  return name;
}

/**
 * What a request meets on a server of finite capacity: a request that reaches the server (not refused while it is
 * down, not answered 429 by the rate limiter in front of it) spends capacity, and beyond capacity it is rejected.
 */
export function withCapacity(
  result: AttemptResult,
  server: ServerLoad | undefined,
  sequence: Sequence,
  t: number,
): AttemptResult {
  if (!server || !sequence.capacity) return result;
  if (!result.ok && (result.down || result.fault === 'rate_limited_429')) return result;
  if (server.admit(t)) return result;
  return {
    ok: false,
    fault: 'overloaded_503',
    transient: true,
    latencyMs: sequence.capacity.rejectLatencyMs,
    down: false,
  };
}

/** The endpoint: answers the k-th request of `call` as the recorded sequence says, after its latency. */
function endpoint(
  sequence: Sequence,
  call: RecordedCall,
  trace: CallTrace,
  server: ServerLoad | undefined,
): Send {
  let k = 0;
  return (signal) => {
    // Like fetch: an already aborted signal rejects at once, and nothing is sent.
    if (signal?.aborted) return Promise.reject(signal.reason);
    k++;
    const start = rel();
    const result = withCapacity(evaluate(sequence, call, k, start), server, sequence, start);
    const attempt: AttemptTrace = result.ok
      ? { k, start, end: Number.NaN, ok: true, down: false, aborted: false }
      : {
          k,
          start,
          end: Number.NaN,
          ok: false,
          fault: result.fault,
          transient: result.transient,
          down: result.down,
          aborted: false,
          ...(result.fault === 'overloaded_503' ? { overloaded: true } : {}),
        };
    trace.attempts.push(attempt);
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        attempt.end = rel();
        attempt.ok = false;
        attempt.aborted = true;
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        attempt.end = rel();
        if (result.ok) resolve(`forecast for call ${call.id}`);
        else
          reject(
            makeError(result.fault, {
              callId: call.id,
              ...(result.retryAfterS === undefined ? {} : { retryAfterS: result.retryAfterS }),
            }),
          );
      }, result.latencyMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
}

/** One call: the policy runs it with a signal that aborts at the deadline; the caller stops waiting then. */
function runCall(
  sequence: Sequence,
  call: RecordedCall,
  policy: PolicyInstance,
  backgroundWork: boolean,
  server: ServerLoad | undefined,
): Promise<CallTrace> {
  const trace: CallTrace = {
    id: call.id,
    start: rel(),
    end: Number.NaN,
    ok: false,
    endedBy: 'error',
    outcome: '',
    attempts: [],
  };
  const controller = new AbortController();
  const limit = Date.now() + sequence.deadlineMs;
  const hasDeadline = sequence.withoutDeadline !== true;
  let settled = false;
  return new Promise<CallTrace>((resolve) => {
    // A policy with background work keeps its deadline after it answered, so that the signal stops that work.
    const deadlineTimer = hasDeadline
      ? setTimeout(() => {
          if (!settled) {
            settled = true;
            trace.end = rel();
            trace.endedBy = 'deadline';
            trace.outcome = 'deadline';
          }
          controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
          resolve(trace);
        }, sequence.deadlineMs)
      : undefined;
    const answered = () => {
      if (backgroundWork && hasDeadline) return;
      clearTimeout(deadlineTimer);
      resolve(trace);
    };
    const send = endpoint(sequence, call, trace, server);
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(
        policy.execute(send, {
          signal: controller.signal,
          ...(hasDeadline ? { deadline: limit } : {}),
          limit,
          call,
          sequence,
          ...(server ? { server } : {}),
        }),
      );
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      () => {
        if (settled) return;
        settled = true;
        trace.end = rel();
        trace.ok = true;
        trace.endedBy = 'success';
        trace.outcome = 'success';
        answered();
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        trace.end = rel();
        trace.endedBy = 'error';
        trace.outcome = describeOutcome(error);
        answered();
      },
    );
  });
}

/** Without a deadline a call may run long (p-retry's 10 retries: 17 min); virtual time allows this much past the window. */
const NO_DEADLINE_SLACK_MS = 60 * 60_000;

/** Replays `sequence` against `policy` on virtual time: calls arrive at their recorded times (or one by one). */
export async function simulate(sequence: Sequence, policy: Policy, seed = sequence.seed): Promise<RunResult> {
  const wallStart = performance.now();
  const limit =
    sequence.durationMs + (sequence.withoutDeadline ? NO_DEADLINE_SLACK_MS : 10 * sequence.deadlineMs);
  let report: Record<string, number> = {};
  let opens: readonly number[] | undefined;
  const { value: calls, timersFired } = await onVirtualTime(seed, limit, async () => {
    const instance = policy.create();
    const server = sequence.capacity ? createServerLoad(sequence.capacity) : undefined;
    const run = (call: RecordedCall) =>
      runCall(sequence, call, instance, policy.backgroundWork === true, server);
    try {
      if (sequence.agent) return await runAgent(sequence, sequence.agent.thinkMs, run);
      return await Promise.all(
        sequence.calls.map((call) =>
          new Promise<void>((resolve) => setTimeout(resolve, call.at)).then(() => run(call)),
        ),
      );
    } finally {
      report = instance.report?.(sequence) ?? {};
      opens = instance.opens?.();
      instance.dispose?.();
    }
  });
  return {
    policy: policy.key,
    scenario: sequence.scenario,
    calls,
    report,
    ...(opens ? { opens } : {}),
    timersFired,
    wallMs: performance.now() - wallStart,
  };
}

/**
 * One sequential agent: a call, then `thinkMs` of thinking after its answer, then the next, starting none after
 * the window (`durationMs`). The calls take the recorded calls in order.
 */
async function runAgent(
  sequence: Sequence,
  thinkMs: number,
  run: (call: RecordedCall) => Promise<CallTrace>,
): Promise<CallTrace[]> {
  const traces: CallTrace[] = [];
  for (const call of sequence.calls) {
    if (rel() >= sequence.durationMs) break;
    traces.push(await run(call));
    await new Promise<void>((resolve) => setTimeout(resolve, thinkMs));
  }
  if (rel() < sequence.durationMs)
    throw new Error(`${sequence.scenario}: the agent ran out of recorded calls before the window's end`);
  return traces;
}
