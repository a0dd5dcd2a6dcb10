import type { Classification } from './Classification.js';
import type { ClassifyContext } from './ClassifyContext.js';
import type { Finding } from './Finding.js';
import { type ErrorFacts, inspectError } from './inspectError.js';
import { matchRule, type RuleMatch, type RuleScope } from './matchRule.js';
import { capMessage } from './readClassification.js';
import { retryAfterFromFacts } from './retryAfter.js';
import { callerAbort } from './rules/callerAbort.js';
import { httpStatus, messageHttpStatus } from './rules/httpStatus.js';
import { jsonRpcCode, messageJsonRpcCode } from './rules/jsonRpcCode.js';
import { messageKeywords } from './rules/messageKeywords.js';
import { nodeCode } from './rules/nodeCode.js';
import { ownErrors } from './rules/ownErrors.js';
import { toolResult } from './rules/toolResult.js';
import { safeGet, safeIsArray } from './safeGet.js';

/** The built-in stages that read the error itself, most structured signal first. */
const ERROR_STAGES: ReadonlyArray<(facts: readonly ErrorFacts[]) => Finding | undefined> = [
  jsonRpcCode,
  httpStatus,
  nodeCode,
  messageJsonRpcCode,
  messageHttpStatus,
  messageKeywords,
  toolResult,
];

const DEFAULT: Finding = { class: 'retryable', type: 'unknown', execution: 'unknown', source: 'default' };

/** What `classifyError` answers if it fails itself (a bug): the conservative default, under its own source. */
const FAILED: Classification = {
  class: 'retryable',
  type: 'unknown',
  execution: 'unknown',
  source: 'classify_failed',
};

/** The context's fields, read safely once. */
interface Context {
  readonly original: ClassifyContext;
  readonly scope: RuleScope;
  readonly rules: readonly unknown[];
  readonly signal: unknown;
  readonly now: number;
}

function readContext(context: ClassifyContext | undefined): Context {
  const endpoint = safeGet(context, 'endpoint');
  const operation = safeGet(context, 'operation');
  const rules = safeGet(context, 'rules');
  const now = safeGet(context, 'now');
  return {
    original: context ?? {},
    scope: {
      ...(typeof endpoint === 'string' ? { endpoint } : {}),
      ...(typeof operation === 'string' ? { operation } : {}),
    },
    rules: listOf(rules),
    signal: safeGet(context, 'signal'),
    now: typeof now === 'number' && Number.isFinite(now) ? now : Date.now(),
  };
}

/** The most user rules looked at. */
const MAX_RULES = 256;

/** The rules as a plain array, read safely. */
function listOf(rules: unknown): readonly unknown[] {
  if (!safeIsArray(rules)) return [];
  const length = safeGet(rules, 'length');
  const count = typeof length === 'number' ? Math.min(length, MAX_RULES) : 0;
  const list: unknown[] = [];
  for (let index = 0; index < count; index++) list.push(safeGet(rules, index));
  return list;
}

/** The error's message, else the first message in its chain, capped. */
function messageOf(facts: readonly ErrorFacts[]): string | undefined {
  const message = facts[0]?.message || facts.find((fact) => fact.message)?.message;
  return message ? capMessage(message) : undefined;
}

/** Adds the `Retry-After` delay to a finding that may be retried and does not have one. */
function withRetryAfter<T extends { readonly class: string; readonly retryAfterMs?: number }>(
  finding: T,
  facts: readonly ErrorFacts[],
  now: number,
): T {
  if (finding.class === 'non_retryable' || finding.retryAfterMs !== undefined) return finding;
  const retryAfterMs = retryAfterFromFacts(facts, now);
  return retryAfterMs === undefined ? finding : { ...finding, retryAfterMs };
}

/** Steps 2-9: what the built-in rules say. */
function builtIn(facts: readonly ErrorFacts[], context: Context): Classification {
  const aborted = callerAbort(facts, context.signal);
  if (aborted !== undefined) return aborted;
  const own = ownErrors(facts);
  if (own !== undefined) return own;
  let finding = DEFAULT;
  for (const stage of ERROR_STAGES) {
    const found = stage(facts);
    if (found !== undefined) {
      finding = found;
      break;
    }
  }
  const neutral = facts[0]?.toolResult === true && finding.class !== 'non_retryable';
  return withRetryAfter(neutral ? { ...finding, healthNeutral: true } : finding, facts, context.now);
}

/** Step 1: the first user rule that matches, with `execution` and `Retry-After` filled in. */
function userRule(
  error: unknown,
  facts: readonly ErrorFacts[],
  context: Context,
  builtInExecution: () => Classification['execution'],
): Classification | undefined {
  for (const [index, rule] of context.rules.entries()) {
    const match: RuleMatch | undefined = matchRule(
      rule,
      index,
      error,
      facts,
      context.original,
      context.scope,
    );
    if (match === undefined) continue;
    const execution = match.execution ?? builtInExecution();
    return withRetryAfter({ ...match, execution }, facts, context.now);
  }
  return undefined;
}

/**
 * Plain data with the invariants: a conditional `rate_limited` is health-neutral; a non-retryable failure is never
 * marked as health-relevant (`healthNeutral: false` is dropped); absent fields are left out.
 */
function finish(decided: Classification, message: string | undefined): Classification {
  const rateLimited = decided.class === 'conditional' && decided.type === 'rate_limited';
  const healthNeutral =
    decided.healthNeutral === false && decided.class === 'non_retryable'
      ? undefined
      : (decided.healthNeutral ?? (rateLimited ? true : undefined));
  return {
    class: decided.class,
    type: decided.type,
    execution: decided.execution,
    ...(decided.retryAfterMs !== undefined ? { retryAfterMs: decided.retryAfterMs } : {}),
    source: decided.source,
    ...(message !== undefined ? { message } : {}),
    ...(healthNeutral !== undefined ? { healthNeutral } : {}),
  };
}

/**
 * Classifies any thrown value: whether to retry it (`class`), what it was (`type`), whether the operation may have
 * run (`execution`), how long to wait (`retryAfterMs`) and which rule decided (`source`).
 *
 * Order, the most structured signal first; the first match decides:
 * 1. `context.rules` (`rule:<name>`);
 * 2. a caller abort: an aborted `context.signal` (`signal.aborted`; `signal.timeout` when its reason is a
 *    `TimeoutError`), an error named `AbortError` / `TimeoutError` (`error.name`) or with an abort code;
 * 3. this library's errors: a `ResilienceError` keeps its classification (`resilience_error`), an
 *    `AttemptTimeoutError` is a timeout (`attempt_timeout`);
 * 4. a JSON-RPC `code` (`jsonrpc.code`; MCP's -32099..-32020 by the MCP error registry, `mcp.protocol.*`), with
 *    the registry's `data` members (`notProcessed`, `requiresUserAction`: `<source>.not_processed`, ...);
 * 5. an HTTP status (`http.status`);
 * 6. a Node/undici error code, or `TypeError('fetch failed')` (`node.code`);
 * 7. a JSON-RPC code or an HTTP status written in the message (`message.jsonrpc_code`, `message.http_status`);
 * 8. message keywords (`message.keyword`);
 * 9. an MCP `CallToolResult` with `isError` passed as the error (`tool_result`), else `retryable` (`default`).
 *
 * A decision that may be retried gets `retryAfterMs` from `Retry-After` headers, properties or message phrases.
 * Pure and total: it never throws, whatever it is given (getters that throw, Proxies, circular causes).
 */
export function classifyError(error: unknown, context?: ClassifyContext): Classification {
  try {
    const facts = inspectError(error);
    const read = readContext(context);
    let builtInResult: Classification | undefined;
    const builtInDecision = (): Classification => {
      builtInResult ??= builtIn(facts, read);
      return builtInResult;
    };
    const decided = userRule(error, facts, read, () => builtInDecision().execution) ?? builtInDecision();
    // A ResilienceError keeps its own message; a function rule may give one; otherwise the error's.
    const message =
      decided.source === 'resilience_error' ? decided.message : (decided.message ?? messageOf(facts));
    return finish(decided, message);
  } catch {
    return FAILED;
  }
}
