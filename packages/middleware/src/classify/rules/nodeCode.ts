import type { Finding, Verdict } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';

const NOT_SENT: Verdict = { class: 'retryable', type: 'network', execution: 'not_sent' };
const CONNECT_TIMEOUT: Verdict = { class: 'retryable', type: 'timeout', execution: 'not_sent' };
const NETWORK: Verdict = { class: 'retryable', type: 'network', execution: 'unknown' };
const TIMEOUT: Verdict = { class: 'retryable', type: 'timeout', execution: 'unknown' };
/** A certificate problem does not go away by retrying. */
const TLS: Verdict = { class: 'non_retryable', type: 'network', execution: 'not_sent' };

/** Node and undici error codes (`code`, or a string `errno`). */
const CODES: ReadonlyMap<string, Verdict> = new Map([
  // The connection was never made: the request was not sent.
  ['ECONNREFUSED', NOT_SENT],
  ['ENOTFOUND', NOT_SENT],
  ['EAI_AGAIN', NOT_SENT],
  ['EHOSTUNREACH', NOT_SENT],
  ['ENETUNREACH', NOT_SENT],
  ['EHOSTDOWN', NOT_SENT],
  ['ENETDOWN', NOT_SENT],
  ['UND_ERR_CONNECT_TIMEOUT', CONNECT_TIMEOUT],
  ['ERR_SOCKET_CONNECTION_TIMEOUT', CONNECT_TIMEOUT],
  // The connection broke: the request may have been processed.
  ['ECONNRESET', NETWORK],
  ['EPIPE', NETWORK],
  ['UND_ERR_SOCKET', NETWORK],
  ['UND_ERR_CLOSED', NETWORK],
  ['ECONNABORTED', NETWORK],
  ['ERR_STREAM_PREMATURE_CLOSE', NETWORK],
  // No answer in time.
  ['ETIMEDOUT', TIMEOUT],
  ['ESOCKETTIMEDOUT', TIMEOUT],
  ['UND_ERR_HEADERS_TIMEOUT', TIMEOUT],
  ['UND_ERR_BODY_TIMEOUT', TIMEOUT],
  // TLS: the certificate is wrong, expired or untrusted.
  ['CERT_HAS_EXPIRED', TLS],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', TLS],
  ['SELF_SIGNED_CERT_IN_CHAIN', TLS],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', TLS],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', TLS],
  ['ERR_TLS_CERT_ALTNAME_INVALID', TLS],
]);

/** `TypeError` messages of a failed `fetch` (undici, Chrome, Firefox, Safari). */
const FETCH_FAILED =
  /^(?:fetch failed|failed to fetch|networkerror when attempting to fetch resource\.?|load failed)$/i;
/** A stdio server whose command cannot be started (`spawn nonexistent-binary ENOENT`): a configuration error. */
const SPAWN = /^spawn\b/;

function codeVerdict(fact: ErrorFacts): Verdict | undefined {
  for (const code of [fact.code, fact.errno]) {
    if (typeof code !== 'string') continue;
    const verdict = CODES.get(code);
    if (verdict === undefined) continue;
    // axios reports its own timeout as ECONNABORTED "timeout of 1000ms exceeded".
    if (code === 'ECONNABORTED' && /timeout/i.test(fact.message ?? '')) return TIMEOUT;
    return verdict;
  }
  if (fact.message !== undefined && SPAWN.test(fact.message)) {
    if (fact.code === 'ENOENT') return { class: 'non_retryable', type: 'not_found', execution: 'not_sent' };
    if (fact.code === 'EACCES') return { class: 'non_retryable', type: 'forbidden', execution: 'not_sent' };
  }
  return undefined;
}

/**
 * Step 7: a Node/undici error code anywhere in the chain (nearest first): refused or unresolved connections are
 * `not_sent`, broken ones `unknown`, missing answers `timeout`. A `TypeError('fetch failed')` without a known code
 * is a `network` failure whose execution is `unknown`.
 */
export function nodeCode(facts: readonly ErrorFacts[]): Finding | undefined {
  for (const fact of facts) {
    const verdict = codeVerdict(fact);
    if (verdict !== undefined) return { ...verdict, source: 'node.code' };
  }
  for (const fact of facts) {
    if (fact.name === 'TypeError' && fact.message !== undefined && FETCH_FAILED.test(fact.message.trim())) {
      return { ...NETWORK, source: 'node.code' };
    }
  }
  return undefined;
}
