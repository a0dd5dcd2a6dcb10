import type { Finding, Verdict } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';
import { safeGet, safeString } from '../safeGet.js';

const CANCELLED: Verdict = {
  class: 'non_retryable',
  type: 'cancelled',
  execution: 'unknown',
  healthNeutral: true,
};
const TIMEOUT: Verdict = { class: 'retryable', type: 'timeout', execution: 'unknown' };

/** Names of an abort reason that means a time limit passed (`AbortSignal.timeout`, the loop's attempt limit). */
const TIMEOUT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'AttemptTimeoutError']);
/** Names of errors a caller's abort produces (DOMException, Node, undici, p-retry, axios). */
const ABORT_NAMES: ReadonlySet<string> = new Set(['AbortError', 'CanceledError']);
/** Codes of the same (Node's `AbortError`, undici's `RequestAbortedError`, axios' `CanceledError`). */
const ABORT_CODES: ReadonlySet<unknown> = new Set(['ABORT_ERR', 'UND_ERR_ABORTED', 'ERR_CANCELED']);

/**
 * Step 2: the caller gave up. An aborted `signal` is a caller abort (`cancelled`), unless its reason is a
 * `TimeoutError` (`AbortSignal.timeout`), which is a `timeout`. Without a signal, an error named `AbortError`
 * (or with an abort code) anywhere in the chain is a caller abort and one named `TimeoutError` a timeout.
 */
export function callerAbort(facts: readonly ErrorFacts[], signal: unknown): Finding | undefined {
  if (safeGet(signal, 'aborted') === true) {
    const reasonName = safeString(safeGet(signal, 'reason'), 'name');
    return reasonName !== undefined && TIMEOUT_NAMES.has(reasonName)
      ? { ...TIMEOUT, source: 'signal.timeout' }
      : { ...CANCELLED, source: 'signal.aborted' };
  }
  for (const fact of facts) {
    if (fact.name === 'TimeoutError') return { ...TIMEOUT, source: 'error.name' };
    if (fact.name !== undefined && ABORT_NAMES.has(fact.name)) return { ...CANCELLED, source: 'error.name' };
    if (ABORT_CODES.has(fact.code)) return { ...CANCELLED, source: 'node.code' };
  }
  return undefined;
}
