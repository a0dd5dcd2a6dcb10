import type { Finding, Verdict } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';
import { RATE_LIMIT, SESSION_EXPIRED, saysQuotaExceeded } from './phrases.js';

interface KeywordRule {
  readonly pattern: RegExp | ((message: string) => boolean);
  readonly verdict: Verdict;
}

const matches = (rule: KeywordRule, message: string): boolean =>
  typeof rule.pattern === 'function' ? rule.pattern(message) : rule.pattern.test(message);

/**
 * Keyword rules, most specific first; the first rule that matches any message of the chain decides. A message
 * may be a tool's text, written after the tool ran: non-retryable rules say `executed`, the others `unknown`
 * (only the MCP SDK's exact `Not connected` is certainly `not_sent`). Where two rules could match, the
 * retryable one comes first: calling a transient error permanent is the costlier mistake.
 */
const KEYWORD_RULES: readonly KeywordRule[] = [
  {
    pattern: (message) => saysQuotaExceeded(message, false),
    verdict: { class: 'non_retryable', type: 'quota_exceeded', execution: 'executed' },
  },
  {
    pattern: RATE_LIMIT,
    verdict: { class: 'conditional', type: 'rate_limited', execution: 'unknown', healthNeutral: true },
  },
  {
    pattern:
      /\bunauthori[sz]ed\b|\bunauthenticated\b|\bnot\s+authenticated\b|invalid[\s_-]?api[\s_-]?key|incorrect\s+api\s+key|\binvalid[\s_-](?:access[\s_-]|auth[\s_-]|bearer[\s_-])?token\b|authentication\s+(?:failed|required)|bad\s+credentials|(?:token|credentials?)\s+(?:has\s+|have\s+)?expired|expired\s+(?:token|credentials)/i,
    verdict: { class: 'non_retryable', type: 'unauthorized', execution: 'executed' },
  },
  {
    pattern: SESSION_EXPIRED,
    verdict: { class: 'conditional', type: 'session_expired', execution: 'unknown' },
  },
  {
    pattern:
      /\bunknown\s+tool\b|\bno\s+such\s+tool\b|\btool\b[^\n]{0,200}?\b(?:not\s+found|does\s+not\s+exist|disabled)\b|\bmethod\s+not\s+(?:found|allowed)\b|\bunknown\s+method\b|\bnot\s+implemented\b/i,
    verdict: { class: 'non_retryable', type: 'method_not_found', execution: 'executed' },
  },
  {
    pattern:
      /\bforbidden\b|permission\s+denied|access\s+denied|\bnot\s+(?:allowed|permitted)\b|insufficient\s+(?:permissions?|scopes?|privileges)/i,
    verdict: { class: 'non_retryable', type: 'forbidden', execution: 'executed' },
  },
  {
    pattern:
      /payload\s+too\s+large|request\s+entity\s+too\s+large|\btoo\s+large\b|exceeds?\s+(?:the\s+)?(?:maximum|max)(?:\s+allowed)?\s+(?:size|length)/i,
    verdict: { class: 'conditional', type: 'payload_too_large', execution: 'unknown' },
  },
  {
    pattern: /\btimed?[\s_-]?out\b|\btimeouts?\b|deadline\s+exceeded|\bE(?:SOCKET)?TIMEDOUT\b/i,
    verdict: { class: 'retryable', type: 'timeout', execution: 'unknown' },
  },
  {
    pattern: /^\s*not\s+connected\s*$/i,
    verdict: { class: 'conditional', type: 'connection_closed', execution: 'not_sent' },
  },
  {
    pattern:
      /\bnot\s+connected\b|connection\s+(?:closed|lost|terminated)|stream\s+(?:disconnected|closed)|other\s+side\s+closed|transport\s+(?:is\s+)?closed/i,
    verdict: { class: 'conditional', type: 'connection_closed', execution: 'unknown' },
  },
  {
    pattern:
      /connection\s+(?:refused|reset)|socket\s+hang\s*up|broken\s+pipe|network\s+(?:error|is\s+unreachable)|\bfetch\s+failed\b|getaddrinfo|\b(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|ECONNABORTED)\b/i,
    verdict: { class: 'retryable', type: 'network', execution: 'unknown' },
  },
  {
    pattern:
      /temporarily[\s_-]unavailable|service[\s_-]unavailable|\bunavailable\b|overloaded|try\s+again\s+later|bad\s+gateway|no\s+healthy\s+upstream|upstream\s+connect\s+error/i,
    verdict: { class: 'retryable', type: 'unavailable', execution: 'unknown' },
  },
  {
    pattern: /internal\s+server\s+error|\binternal[\s_-]error\b|\bserver[\s_-]error\b/i,
    verdict: { class: 'retryable', type: 'server_error', execution: 'unknown' },
  },
  {
    pattern: /\bnot\s+found\b|does\s+not\s+exist|doesn't\s+exist|\bno\s+such\b/i,
    verdict: { class: 'non_retryable', type: 'not_found', execution: 'executed' },
  },
  {
    pattern:
      /\binvalid\b|\bvalidation\b|\bmust\s+be\b|\b(?:is|are)\s+required\b|missing\s+required|required\s+(?:parameter|field|argument|property)|\bexpected\b[^\n]{1,120}?\breceived\b|\bmalformed\b|\bnot\s+of\s+type\b|\bbad\s+request\b|\bcannot\s+be\s+(?:empty|blank|null)\b|\bout\s+of\s+range\b/i,
    verdict: { class: 'non_retryable', type: 'invalid_params', execution: 'executed' },
  },
  // A bare status number ("upstream 503") is the weakest signal: it comes after the phrases.
  { pattern: /\b50[23]\b/, verdict: { class: 'retryable', type: 'unavailable', execution: 'unknown' } },
  { pattern: /\b504\b/, verdict: { class: 'retryable', type: 'timeout', execution: 'unknown' } },
  { pattern: /\b500\b/, verdict: { class: 'retryable', type: 'server_error', execution: 'unknown' } },
];

/** Step 8: keywords in the messages of the error and its causes (case-insensitive). */
export function messageKeywords(facts: readonly ErrorFacts[]): Finding | undefined {
  const messages = facts.flatMap((fact) => (fact.message === undefined ? [] : [fact.message]));
  if (messages.length === 0) return undefined;
  for (const rule of KEYWORD_RULES) {
    if (messages.some((message) => matches(rule, message)))
      return { ...rule.verdict, source: 'message.keyword' };
  }
  return undefined;
}
