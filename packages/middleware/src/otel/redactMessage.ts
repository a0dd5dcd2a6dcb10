/** What replaces a secret. */
const MASK = '***';
/** Messages longer than this are cut before redaction, so that a pathological message costs bounded time. */
const SCAN_LIMIT = 16_384;

/** Query-string and form parameters whose values are secrets. */
const SECRET_PARAMS =
  'access_token|refresh_token|id_token|token|api_key|apikey|api-key|client_secret|secret|password|passwd|pwd|key|sig|signature|auth';

/** Ordered: each pattern runs on the previous one's output. `$1` keeps a non-secret prefix. */
const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // Passwords in URLs: https://user:pass@host → https://user:***@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#:@]*):[^\s/?#@]*@/gi, `$1:${MASK}@`],
  // JSON Web Tokens (also when not behind `Bearer`).
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, MASK],
  // Bearer credentials (Basic ones are caught with their Authorization header below).
  [/\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi, `Bearer ${MASK}`],
  // Authorization (and similar) header values: `Authorization: xyz`, `"authorization": "xyz"`, `x-api-key: xyz`.
  [
    /\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token)(["']?\s*[:=]\s*["']?)[^"'\r\n,;})\]]+/gi,
    `$1$2${MASK}`,
  ],
  // Cookies: the whole header value.
  [/\b(set-cookie|cookie)(\s*:\s*)[^\r\n]+/gi, `$1$2${MASK}`],
  // Provider API keys.
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, `sk-ant-${MASK}`],
  [/\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, `sk-${MASK}`],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, `github_pat_${MASK}`],
  [/\b(gh[pousr])_[A-Za-z0-9]{16,}/g, `$1_${MASK}`],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, `$1${MASK}`],
  [/\b(xox[baprse])-[A-Za-z0-9-]{8,}/g, `$1-${MASK}`],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, `AIza${MASK}`],
  // Secrets in query strings and forms: ?token=…, &api_key=…, password=…
  [new RegExp(`(^|[?&;\\s,({\\[])(${SECRET_PARAMS})=[^&#\\s"',;)}\\]]+`, 'gi'), `$1$2=${MASK}`],
  // Secrets in JSON: "password": "…"
  [
    new RegExp(`("(?:${SECRET_PARAMS}|accessToken|refreshToken|apiKey|clientSecret)"\\s*:\\s*")[^"]*"`, 'gi'),
    `$1${MASK}"`,
  ],
];

/**
 * Removes secrets from an error message, then caps its length (ending with `…` when cut). Removes bearer
 * credentials, JWTs, API keys (`sk-…`, `sk-ant-…`, `ghp_…`/`gho_…`, `github_pat_…`, `AKIA…`, `xox?-…`,
 * `AIza…`), passwords in URLs, secret query parameters (`token`, `api_key`, `access_token`, `key`, `secret`,
 * `password`, `sig`…), `Authorization:` header values and secret JSON fields. `extra` patterns are masked too.
 *
 * Redaction is best effort: it recognises common shapes, not every secret. Turn message capture off
 * (`captureMessages: false`) where messages may carry personal data.
 */
export function redactMessage(text: string, maxLength = 256, extra: readonly RegExp[] = []): string {
  if (typeof text !== 'string') text = String(text);
  let out = text.length > SCAN_LIMIT ? text.slice(0, SCAN_LIMIT) : text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  for (const pattern of extra)
    out = out.replace(pattern.global ? pattern : new RegExp(pattern, `${pattern.flags}g`), MASK);
  return cap(out, Math.max(1, Math.floor(maxLength)));
}

/** Cuts to at most `max` characters, ending with an ellipsis, without splitting a surrogate pair. */
function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
