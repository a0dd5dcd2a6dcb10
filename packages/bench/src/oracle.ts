import { evaluate, type RecordedCall, type Sequence } from './scenarios.js';
import type { ServerLoad } from './serverLoad.js';
import type { Policy, PolicyInstance } from './simulate.js';
import { EPOCH } from './virtualTime.js';

/**
 * How many doomed attempts the oracle is willing to send to reach a later attempt that succeeds (a brownout needs
 * several: every request fails with the same probability whenever it is sent).
 */
const SACRIFICE_DEPTH = 6;

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
  // Never a doomed request into a down endpoint: the oracle is also the bound on kindness to a recovering server.
  if (r.ok || !r.transient || r.down) return undefined;
  return planStep(sequence, call, k + 1, now + r.latencyMs, deadline, depth - 1)
    ? { at: now, succeeds: false }
    : undefined;
}

/** Whether the first attempt, sent now, would answer with a permanent fault. */
function revealsPermanentFault(sequence: Sequence, call: RecordedCall, now: number): boolean {
  const r = evaluate(sequence, call, 1, now);
  return !r.ok && !r.transient;
}

/**
 * Waits until `server` would admit a request whose answer takes `latencyMs`, if that can end by `deadline` (ms
 * since the start); false when it cannot.
 */
async function waitForAdmission(server: ServerLoad, latencyMs: number, deadline: number): Promise<boolean> {
  for (;;) {
    const now = Date.now() - EPOCH;
    const at = server.nextAdmission(now);
    if (at + latencyMs > deadline) return false;
    if (at <= now) return true;
    await new Promise((resolve) => setTimeout(resolve, at - now));
  }
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
 *
 * On a server of finite capacity (the overload scenario) the future depends on the other calls, so no policy can
 * know it from the recording alone; there the oracle is a perfect admission controller: it also reads the
 * server's load, sends a request only when the server will admit it (it never spends capacity on a rejection),
 * and otherwise waits for the earliest time the server would admit it, giving up at once when that time leaves
 * no room for the answer before the deadline. Every call the server serves is then a success, so its goodput is
 * the server's capacity whenever demand exceeds it: an upper bound on any policy's goodput.
 */
export const oracle: Policy = {
  key: 'oracle',
  name: 'oracle (the limit)',
  description:
    "knows the recorded sequence: retries only failures that a later attempt will overcome, exactly when the endpoint has recovered; fails at once otherwise. On a server of finite capacity (overload) it also reads the server's load and sends only what the server will admit (a perfect admission controller)",
  create(): PolicyInstance {
    return {
      async execute(send, { signal, limit, call, sequence, server }) {
        // The call's limit: its deadline, or without one the scenario's limit (the oracle waits only within it).
        const deadlineRel = limit - EPOCH;
        let lastError: unknown;
        for (let k = 1; ; k++) {
          const now = Date.now() - EPOCH;
          const step = planStep(sequence, call, k, now, deadlineRel);
          if (!step) {
            // A call with bad arguments still needs its error, once, so the model can correct itself.
            if (k === 1 && revealsPermanentFault(sequence, call, now)) {
              if (server && !(await waitForAdmission(server, 0, deadlineRel)))
                throw new OracleGaveUp('the server cannot admit the call before its deadline');
              return send(signal);
            }
            throw lastError ?? new OracleGaveUp('no attempt can succeed before the deadline');
          }
          if (step.at > now) await new Promise((resolve) => setTimeout(resolve, step.at - now));
          if (server) {
            const admitted = await waitForAdmission(
              server,
              evaluate(sequence, call, k, Date.now() - EPOCH).latencyMs,
              deadlineRel,
            );
            if (!admitted)
              throw lastError ?? new OracleGaveUp('the server cannot admit the call before its deadline');
          }
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
