import {
  createResilience,
  defaults,
  type ResilienceEvent,
  type ResilienceOptions,
  realClock,
} from '@mcp-resilience/middleware';
import { ConsecutiveBreaker, circuitBreaker, ExponentialBackoff, handleAll, retry, wrap } from 'cockatiel';
import CircuitBreaker from 'opossum';
import pRetry from 'p-retry';
import { httpStatusOf, isAbortError, isNetworkError } from './faults.js';
import { oracle } from './oracle.js';
import type { Sequence } from './scenarios.js';
import type { Policy, Send } from './simulate.js';
import { EPOCH } from './virtualTime.js';

/** A plain timer wait (the global, faked `setTimeout`), not abortable. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An abortable wait that rejects with the signal's reason. */
const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** What most agents do: `for attempt in 0..5: try call() except: sleep(2 ** attempt)`. */
export const naive: Policy = {
  key: 'naive',
  name: 'naive loop',
  description:
    'retries every error 5 times, backoff 1 s × 2^n (1, 2, 4, 8, 16 s), no jitter, no breaker; passes the signal to the request and stops once it has aborted',
  create: () => ({
    async execute(send, { signal }) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await send(signal);
        } catch (error) {
          if (attempt === 5 || signal.aborted) throw error;
          await sleep(1000 * 2 ** attempt);
          if (signal.aborted) throw error;
        }
      }
    },
  }),
};

/** p-retry with its defaults: 10 retries, 1 s × 2^n, no jitter; it retries everything but non-network TypeErrors. */
export const pRetryDefaults: Policy = {
  key: 'p-retry',
  name: 'p-retry (defaults)',
  description:
    'p-retry 9.0.0 defaults (retries 10, minTimeout 1 s, factor 2, no randomize), with the call signal',
  create: () => ({
    execute: (send, { signal }) => pRetry(() => send(signal), { signal }),
  }),
};

/** cockatiel's README combination: retry(handleAll, exponential) around circuitBreaker(handleAll, consecutive 5). */
export const cockatielPolicy: Policy = {
  key: 'cockatiel',
  name: 'cockatiel retry + breaker',
  description:
    'cockatiel 4.0.0: wrap(retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() }), circuitBreaker(handleAll, { halfOpenAfter: 10 s, breaker: new ConsecutiveBreaker(5) })), the README example values',
  create() {
    const policy = wrap(
      retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() }),
      circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
    );
    return { execute: (send, { signal }) => policy.execute(({ signal: s }) => send(s), signal) };
  },
};

/** opossum (defaults) around p-retry (defaults): one breaker for the endpoint. */
export const opossumPRetry: Policy = {
  key: 'opossum',
  name: 'opossum + p-retry',
  description:
    "opossum 10.0.0 breaker with its defaults (timeout 10 s, errorThresholdPercentage 50, resetTimeout 30 s, volumeThreshold 0) around p-retry defaults; opossum's timeout rejects the call but leaves p-retry running until the caller's signal aborts",
  backgroundWork: true,
  create() {
    const breaker = new CircuitBreaker(
      (send: Send, signal: AbortSignal) => pRetry(() => send(signal), { signal }),
      {},
    );
    return {
      execute: (send, { signal }) => breaker.fire(send, signal),
      dispose: () => breaker.shutdown(),
    };
  },
};

/**
 * LangGraph's default retry predicate (Python `default_retry_on`, per the research note): connection errors and
 * 5xx are retried, HTTP 4xx (429 and 408 included) are not, TypeError (non-network) is not, anything else is.
 */
export function langGraphRetryOn(error: unknown): boolean {
  if (isAbortError(error)) return false;
  if (isNetworkError(error)) return true;
  const status = httpStatusOf(error);
  if (status !== undefined) return status >= 500;
  if (error instanceof TypeError) return false;
  return true;
}

/** LangGraph's RetryPolicy defaults: 3 attempts, 0.5 s initial, factor 2, max 128 s, jitter adds U(0, 1) s. */
export const langGraph: Policy = {
  key: 'langgraph',
  name: 'LangGraph-style',
  description:
    'RetryPolicy defaults: max_attempts 3, initial_interval 0.5 s, backoff_factor 2, max_interval 128 s, jitter +U(0,1) s, default_retry_on (connection errors and 5xx; not 4xx); the signal is checked before each attempt, the sleep is not abortable',
  create: () => ({
    async execute(send, { signal }) {
      let interval = 500;
      for (let attempt = 1; ; attempt++) {
        signal.throwIfAborted();
        try {
          return await send(signal);
        } catch (error) {
          if (attempt >= 3 || !langGraphRetryOn(error)) throw error;
          await sleep(Math.min(128_000, interval) + Math.random() * 1000);
          interval *= 2;
        }
      }
    },
  }),
};

/** The AI SDK's `APICallError.isRetryable`: 408, 409, 429, 5xx, and "Cannot connect to API" (fetch failed). */
export function aiSdkRetryable(error: unknown): boolean {
  if (isNetworkError(error)) return true;
  const status = httpStatusOf(error);
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}

/** The AI SDK's `getRetryDelayInMs`: `retry-after-ms` / `retry-after` when 0 ≤ it < 60 s (or below the backoff). */
export function aiSdkDelay(error: unknown, exponentialBackoffDelay: number): number {
  const headers = (error as { headers?: Record<string, string> }).headers;
  if (!headers) return exponentialBackoffDelay;
  let ms: number | undefined;
  const retryAfterMs = headers['retry-after-ms'];
  if (retryAfterMs && !Number.isNaN(Number.parseFloat(retryAfterMs))) ms = Number.parseFloat(retryAfterMs);
  const retryAfter = headers['retry-after'];
  if (retryAfter && ms === undefined) {
    const seconds = Number.parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < exponentialBackoffDelay))
    return ms;
  return exponentialBackoffDelay;
}

/** The AI SDK's retryWithExponentialBackoffRespectingRetryHeaders: maxRetries 2, 2 s initial, factor 2. */
export const aiSdk: Policy = {
  key: 'ai-sdk',
  name: 'AI SDK-style',
  description:
    'maxRetries 2, initialDelayInMs 2000, backoffFactor 2, retries 408/409/429/5xx and network errors, honours retry-after(-ms) under 60 s, abortable delay',
  create: () => ({
    async execute(send, { signal }) {
      let delay = 2000;
      for (let tryNumber = 1; ; tryNumber++) {
        try {
          return await send(signal);
        } catch (error) {
          if (isAbortError(error) || tryNumber > 2 || !aiSdkRetryable(error)) throw error;
          await abortableSleep(aiSdkDelay(error, delay), signal);
          delay *= 2;
        }
      }
    },
  }),
};

/** mcp-resilience with `options` over its defaults, on the simulation's virtual clock. */
export function mcpResilienceWith(
  options: ResilienceOptions,
  key: string,
  name: string,
  description: string,
): Policy {
  return {
    key,
    name,
    description,
    create() {
      const transitions: { readonly t: number; readonly to: string }[] = [];
      const resilience = createResilience({
        ...options,
        // The virtual clock: time and timers are the faked globals, randomness the seeded Math.random.
        clock: { now: () => Date.now(), sleep: realClock.sleep, random: () => Math.random() },
        // Only the breaker's transitions are kept (the decisions do not depend on the recorder).
        recorder: {
          record(event: ResilienceEvent) {
            if (event.type === 'breaker_transition')
              transitions.push({ t: event.time - EPOCH, to: event.to });
          },
        },
      });
      return {
        report: (sequence) => breakerReport(transitions, sequence),
        opens: () => transitions.filter((t) => t.to === 'open').map((t) => t.t),
        // Without a deadline the caller gives neither a signal nor timeoutMs: the library's own limit applies.
        execute: (send, { signal, deadline }) =>
          resilience.execute(({ signal: s }) => send(s), {
            endpoint: 'weather',
            operation: 'tools/call',
            ...(deadline === undefined ? {} : { signal, timeoutMs: deadline - Date.now() }),
          }),
      };
    },
  };
}

/**
 * How often the breaker opened, how long it was not closed (open or half-open: calls are rejected), and how much of
 * that time the endpoint was actually up (not in a down segment), within the arrival period of the run.
 */
export function breakerReport(
  transitions: readonly { readonly t: number; readonly to: string }[],
  sequence: Sequence,
): Record<string, number> {
  let opens = 0;
  let notClosedMs = 0;
  let notClosedWhileUpMs = 0;
  let since: number | undefined;
  const add = (from: number, to: number) => {
    const a = Math.max(0, from);
    const b = Math.min(sequence.durationMs, to);
    if (b <= a) return;
    notClosedMs += b - a;
    let down = 0;
    for (const s of sequence.segments) {
      if (s.state.kind === 'down') down += Math.max(0, Math.min(b, s.to) - Math.max(a, s.from));
    }
    notClosedWhileUpMs += b - a - down;
  };
  for (const tr of transitions) {
    if (tr.to === 'open') opens++;
    if (tr.to !== 'closed' && since === undefined) since = tr.t;
    if (tr.to === 'closed' && since !== undefined) {
      add(since, tr.t);
      since = undefined;
    }
  }
  if (since !== undefined) add(since, sequence.durationMs);
  return {
    breakerOpens: opens,
    breakerNotClosedMs: notClosedMs,
    breakerNotClosedWhileUpMs: notClosedWhileUpMs,
  };
}

/** mcp-resilience with its defaults; the call's deadline as `timeoutMs` and as the signal. */
export const mcpResilience: Policy = mcpResilienceWith(
  {},
  'mcp-resilience',
  'mcp-resilience (defaults)',
  `createResilience() defaults (${describeDefaults()}); per call: endpoint, signal, timeoutMs = the deadline`,
);

/** The library's defaults that matter here, read from the library itself. */
export function describeDefaults(): string {
  const { retry: r, budget: b, breaker: k, gate: g } = defaults;
  return (
    `${r.maxAttempts} attempts, backoff ${r.backoff.baseMs} ms × ${r.backoff.factor} with ${r.backoff.jitter} jitter, ` +
    `adaptive backoff ${r.backoff.adaptive ? 'on' : 'off'}, retry budget ${100 * b.ratio}% of calls + ${b.minPerSecond}/s, ` +
    `breaker opens on ${k.consecutiveFailures} failures in a row or ${100 * k.failureRate}% of ≥ ${k.minimumCalls} calls in ${k.windowMs / 1000} s, ` +
    `probes every ${k.breakMs / 1000}-${k.maxBreakMs / 1000} s (learned per endpoint, ±${100 * k.jitter}% jitter), ${k.halfOpenProbes} half-open probe(s), ` +
    `calls ${g.wait ? `wait at an open breaker for its verdict (≤ ${g.maxWaiting} per endpoint; ${g.waitLimitMs / 1000} s without a deadline)` : 'fail fast at an open breaker'}`
  );
}

export const POLICIES: readonly Policy[] = [
  naive,
  pRetryDefaults,
  cockatielPolicy,
  opossumPRetry,
  langGraph,
  aiSdk,
  mcpResilience,
  oracle,
];

/**
 * Non-default settings, run only as evidence for a review of the defaults (never in the headline): the breaker
 * failing fast (as before issue #11), and a breaker that trips sooner.
 */
export const WHAT_IF: readonly Policy[] = [
  mcpResilienceWith(
    { breakerWait: false },
    'mcp-resilience:fail-fast',
    'mcp-resilience, fail-fast breaker',
    'defaults, except breakerWait: false (a call that meets an open breaker fails at once with circuit_open, as before issue #11)',
  ),
  mcpResilienceWith(
    { breakerConsecutiveFailures: 3 },
    'mcp-resilience:trip-3',
    'mcp-resilience, trips after 3 failures',
    'defaults, except breakerConsecutiveFailures: 3 (fewer first requests into each short outage, at the price of a breaker that also opens on streaks of a brownout, where calls then wait for its probe)',
  ),
];

/** Every policy by key (for worker processes). */
export function policyByKey(key: string): Policy {
  const policy = [...POLICIES, ...WHAT_IF].find((p) => p.key === key);
  if (!policy) throw new Error(`unknown policy '${key}'`);
  return policy;
}
