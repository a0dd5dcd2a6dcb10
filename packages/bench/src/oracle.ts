import { evaluate, type RecordedCall, type Sequence } from './scenarios.js';
import type { Policy, PolicyInstance } from './simulate.js';
import { EPOCH } from './virtualTime.js';

/** How many doomed attempts the oracle is willing to send to reach a later attempt that succeeds. */
const SACRIFICE_DEPTH = 3;

/** The oracle's next step for attempt `k`: send at `at` (ms since the start of the run). */
export interface OracleStep {
  readonly at: number;
  /** The attempt sent at `at` will succeed (otherwise it is a doomed attempt that leads to one that does). */
  readonly succeeds: boolean;
}

/** The times at which attempt `k` may have a different fate: now, and every segment start before the deadline. */
function candidates(sequence: Sequence, now: number, deadline: number): number[] {
  const times = [now];
  for (const s of sequence.segments) if (s.from > now && s.from < deadline) times.push(s.from);
  for (const s of sequence.segments) if (s.to > now && s.to < deadline) times.push(s.to);
  return [...new Set(times)].sort((a, b) => a - b);
}

/**
 * What the oracle does for attempt `k` at `now` (ms since the start): the earliest time attempt `k` succeeds
 * and ends by the deadline; else, if attempt `k` fails now with a transient fault and a later attempt can
 * succeed, send it now anyway; else `undefined` (no success is possible before the deadline).
 */
export function planStep(
  sequence: Sequence,
  call: RecordedCall,
  k: number,
  now: number,
  deadline: number,
  depth = SACRIFICE_DEPTH,
): OracleStep | undefined {
  if (k > call.attempts.length) return undefined;
  for (const t of candidates(sequence, now, deadline)) {
    const r = evaluate(sequence, call, k, t);
    if (r.ok && t + r.latencyMs <= deadline) return { at: t, succeeds: true };
  }
  if (depth === 0 || k >= call.attempts.length) return undefined;
  const r = evaluate(sequence, call, k, now);
  if (r.ok || !r.transient) return undefined;
  return planStep(sequence, call, k + 1, now + r.latencyMs, deadline, depth - 1)
    ? { at: now, succeeds: false }
    : undefined;
}

/** Whether the first attempt, sent now, would answer with a permanent fault. */
function revealsPermanentFault(sequence: Sequence, call: RecordedCall, now: number): boolean {
  const r = evaluate(sequence, call, 1, now);
  return !r.ok && !r.transient;
}

/** Thrown when the oracle gives up without sending: no success is possible before the deadline. */
export class OracleGaveUp extends Error {
  override readonly name = 'OracleGaveUp';
}

/**
 * The limit: a policy that knows the recorded sequence. It sends an attempt only when it will succeed (or leads
 * to one that will), waits exactly until the endpoint recovers, never retries a permanent fault, and gives up at
 * once when nothing can succeed before the deadline. Its success rate is the best any policy can reach on the
 * sequence (up to SACRIFICE_DEPTH doomed attempts in a row).
 */
export const oracle: Policy = {
  key: 'oracle',
  name: 'oracle (the limit)',
  description:
    'knows the recorded sequence: retries only failures that a later attempt will overcome, exactly when the endpoint has recovered; fails at once otherwise',
  create(): PolicyInstance {
    return {
      async execute(send, { signal, deadline, call, sequence }) {
        const deadlineRel = deadline - EPOCH;
        let lastError: unknown;
        for (let k = 1; ; k++) {
          const now = Date.now() - EPOCH;
          const step = planStep(sequence, call, k, now, deadlineRel);
          if (!step) {
            // A call with bad arguments still needs its error, once, so the model can correct itself.
            if (k === 1 && revealsPermanentFault(sequence, call, now)) return send(signal);
            throw lastError ?? new OracleGaveUp('no attempt can succeed before the deadline');
          }
          if (step.at > now) await new Promise((resolve) => setTimeout(resolve, step.at - now));
          try {
            return await send(signal);
          } catch (error) {
            lastError = error;
          }
        }
      },
    };
  },
};
