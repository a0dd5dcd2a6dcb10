import type { Finding, Verdict } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';
import { anyMatches, RATE_LIMIT, SESSION_EXPIRED, saysQuotaExceeded } from './phrases.js';

/** `status 503`, `status code: 404`, `StatusCode=429`, `HTTP 502`, `(HTTP 404)`, `HTTP/1.1 503`, `response code 500`. */
const STATUS_IN_TEXT =
  /\b(?:status(?:[\s_-]?code)?|http(?:\/\d(?:\.\d)?)?|response\s+code)\s*[:=]?\s*\(?\s*([1-5]\d\d)\b/gi;
/** `404 Not Found`, `503 Service Unavailable`: a status followed by its reason phrase. */
const STATUS_WITH_REASON =
  /\b([45]\d\d)\s+(?:bad\s+request|unauthorized|payment\s+required|forbidden|not\s+found|method\s+not\s+allowed|not\s+acceptable|request\s+timeout|conflict|gone|payload\s+too\s+large|request\s+entity\s+too\s+large|unsupported\s+media\s+type|unprocessable\s+(?:entity|content)|too\s+early|too\s+many\s+requests|internal\s+server\s+error|not\s+implemented|bad\s+gateway|service\s+unavailable|gateway\s+time-?out)\b/gi;

const nonRetryable = (type: Verdict['type']): Verdict => ({
  class: 'non_retryable',
  type,
  execution: 'not_sent',
});
const retryable = (type: Verdict['type'], execution: Verdict['execution'] = 'unknown'): Verdict => ({
  class: 'retryable',
  type,
  execution,
});
const RATE_LIMITED: Verdict = {
  class: 'conditional',
  type: 'rate_limited',
  execution: 'not_sent',
  healthNeutral: true,
};
const SESSION: Verdict = { class: 'conditional', type: 'session_expired', execution: 'not_sent' };

const quota = (texts: readonly (string | undefined)[]): boolean =>
  texts.some((text) => text !== undefined && saysQuotaExceeded(text, true));

/**
 * What an HTTP status (400..599) means; `undefined` below 400. The messages of the chain refine a few: a 400/404
 * about the MCP session is `session_expired`, a 429 (or 403) about a used-up quota or billing is `quota_exceeded`, a 403 about a rate
 * limit (GitHub, Google) is `rate_limited`.
 */
export function classifyHttpStatus(
  status: number,
  texts: readonly (string | undefined)[],
): Verdict | undefined {
  switch (status) {
    case 400:
      return anyMatches(texts, SESSION_EXPIRED) ? SESSION : nonRetryable('invalid_request');
    case 401:
      return nonRetryable('unauthorized');
    case 403:
      if (quota(texts)) return nonRetryable('quota_exceeded');
      return anyMatches(texts, RATE_LIMIT) ? RATE_LIMITED : nonRetryable('forbidden');
    case 404:
      return anyMatches(texts, SESSION_EXPIRED) ? SESSION : nonRetryable('not_found');
    case 405:
    case 501:
      return nonRetryable('method_not_found');
    case 408:
      return retryable('timeout');
    case 409:
      return retryable('conflict', 'executed');
    case 410:
      return nonRetryable('not_found');
    case 413:
      return { class: 'conditional', type: 'payload_too_large', execution: 'not_sent' };
    case 415:
    case 422:
      return nonRetryable('invalid_params');
    case 425:
      return retryable('unavailable', 'not_sent');
    case 429:
      return quota(texts) ? nonRetryable('quota_exceeded') : RATE_LIMITED;
    case 500:
      return retryable('server_error');
    case 502:
    case 503:
      return retryable('unavailable');
    case 504:
      return retryable('timeout');
    default:
      if (status >= 400 && status < 500) return nonRetryable('invalid_request');
      if (status >= 500 && status < 600) return retryable('server_error');
      return undefined;
  }
}

/** The messages and string codes of the chain (OpenAI puts `insufficient_quota` in `code`). */
function textsOf(facts: readonly ErrorFacts[]): (string | undefined)[] {
  return facts.flatMap((fact) => [fact.message, typeof fact.code === 'string' ? fact.code : undefined]);
}

/**
 * Step 5: an HTTP status from `status`, `statusCode`, `response.status(Code)` or a numeric `code` in 100..599, on
 * the error or in its cause chain (nearest first).
 */
export function httpStatus(facts: readonly ErrorFacts[]): Finding | undefined {
  for (const fact of facts) {
    if (fact.status === undefined) continue;
    const verdict = classifyHttpStatus(fact.status, textsOf(facts));
    if (verdict !== undefined) return { ...verdict, source: 'http.status' };
  }
  return undefined;
}

function statusInText(text: string): number | undefined {
  for (const pattern of [STATUS_IN_TEXT, STATUS_WITH_REASON]) {
    for (const match of text.matchAll(pattern)) {
      const status = Number(match[1]);
      if (status >= 400) return status;
    }
  }
  return undefined;
}

/**
 * An HTTP status written in a message: `Failed to fetch https://x - status code 503`, `unexpected status 502`,
 * `GET https://api.github.com/...: 404 Not Found`, `Error POSTing to endpoint (HTTP 404)`. Such text often comes
 * from a tool that ran and called something else, so "certainly not sent" becomes `unknown`.
 */
export function messageHttpStatus(facts: readonly ErrorFacts[]): Finding | undefined {
  for (const fact of facts) {
    const status = fact.message === undefined ? undefined : statusInText(fact.message);
    if (status === undefined) continue;
    const verdict = classifyHttpStatus(status, textsOf(facts));
    if (verdict === undefined) continue;
    const execution = verdict.execution === 'not_sent' ? 'unknown' : verdict.execution;
    return { ...verdict, execution, source: 'message.http_status' };
  }
  return undefined;
}
