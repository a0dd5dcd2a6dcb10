/**
 * Phrases shared by the HTTP-status refinements and the message keywords. Case-insensitive; `[\s_-]` also
 * accepts machine spellings such as `insufficient_quota` or `too_many_requests`.
 */

/** A used-up quota (OpenAI's `insufficient_quota`, "You exceeded your current quota", daily limits). */
const QUOTA =
  /quota[\s_-]?(?:exceeded|exhausted)|exceeded\s+(?:your\s+|the\s+)?(?:current\s+|daily\s+|monthly\s+)?quota|insufficient[\s_-]quota|out\s+of\s+quota|daily[\s_-]?limit[\s_-]?exceeded/i;
/** Billing words: only trusted together with a 429 or 403. */
const BILLING = /\bbilling\b|credit\s+balance\s+is\s+too\s+low/i;
/** A per-second or per-minute window: waiting restores it, so it is a rate limit, not a used-up quota. */
const SHORT_WINDOW = /per\s+(?:second|minute)|\b(?:rpm|tpm|rps|qps)\b/i;

/** A rate limit: waiting helps. */
export const RATE_LIMIT = /rate[\s_-]?limit|too[\s_-]many[\s_-]requests|throttl/i;

/** An MCP session the server no longer knows (Streamable HTTP 404 `Session not found`, 400 `No valid session ID`). */
export const SESSION_EXPIRED =
  /no\s+valid\s+session|session(?:\s+id)?\s+(?:not\s+found|expired|has\s+expired|terminated|is\s+invalid|header\s+is\s+required)|(?:invalid|unknown|expired)\s+session|mcp-session-id\s+header\s+is\s+required|server\s+not\s+initialized/i;

/**
 * True when `text` says a quota is used up, so waiting does not help. With `billing`, billing words count too
 * (use it only when a 429 or 403 already says "limit"). A per-second or per-minute quota is a rate limit.
 */
export function saysQuotaExceeded(text: string, billing: boolean): boolean {
  return (QUOTA.test(text) || (billing && BILLING.test(text))) && !SHORT_WINDOW.test(text);
}

/** True when one of `texts` matches `pattern`. */
export const anyMatches = (texts: readonly (string | undefined)[], pattern: RegExp): boolean =>
  texts.some((text) => text !== undefined && pattern.test(text));
