import type { Classification } from './Classification.js';
import { readClassification } from './readClassification.js';
import { hasResilienceBrand } from './resilienceBrand.js';
import { safeGet, safeIsArray, safeString } from './safeGet.js';

/** How many `cause` levels below the error are read. */
const MAX_DEPTH = 8;
/** How many errors, in all, are read from one error tree. */
const MAX_NODES = 24;
/** How many entries of an `AggregateError`'s `errors` are read. */
const MAX_AGGREGATED = 5;
/** How many characters of one message the rules look at. */
const MAX_TEXT = 8192;
/** How many header names are compared case-insensitively. */
const MAX_HEADER_KEYS = 64;

/**
 * A `Retry-After` value found on an error: `ms` is a delay in milliseconds (`retryAfterMs`, `retry-after-ms`),
 * `header` has `Retry-After` semantics (seconds, or an HTTP date).
 */
export interface RetryAfterHint {
  readonly kind: 'ms' | 'header';
  readonly value: number | string;
}

/**
 * The members of a JSON-RPC error's `data` that the MCP error registry (draft, 2026-09-03) gives a meaning to, when
 * they have the right type: `retryAfterMs` (a finite delay >= 0), `notProcessed: true`, `requiresUserAction: true`,
 * and -32024 Unavailable's `reason` (a short string).
 */
export interface RegistryData {
  readonly retryAfterMs?: number;
  readonly notProcessed?: true;
  readonly requiresUserAction?: true;
  readonly reason?: string;
}

/** What one error of the tree says, read once through safe accessors. Plain data. */
export interface ErrorFacts {
  /** 0 for the error itself, 1 for its cause or aggregated errors, ... */
  readonly depth: number;
  readonly name?: string;
  /** The message (the value itself for a string, the text for a tool result), cut to 8 KiB. */
  readonly message?: string;
  readonly code?: number | string;
  readonly errno?: number | string;
  /** An HTTP status in 100..599 from `status`, `statusCode`, `response.status(Code)` or a numeric `code`. */
  readonly status?: number;
  /** True when the error has a `data` value (the MCP SDK's timeout carries one, its caller abort does not). */
  readonly hasData: boolean;
  /** The registry members of `data` (absent when `data` has none). */
  readonly registry?: RegistryData;
  readonly retryAfter: readonly RetryAfterHint[];
  /** The classification a `ResilienceError` carries. */
  readonly resilience?: Classification;
  /** True for an MCP `CallToolResult` with `isError: true` (only the error itself, depth 0). */
  readonly toolResult: boolean;
}

const isObjectLike = (value: unknown): value is object =>
  (typeof value === 'object' && value !== null) || typeof value === 'function';

const isHttpStatus = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;

function statusFrom(value: unknown): number | undefined {
  if (isHttpStatus(value)) return value;
  if (typeof value === 'string' && /^[1-5]\d\d$/.test(value)) return Number(value);
  return undefined;
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
}

function statusOf(error: object, code: unknown): number | undefined {
  const response = safeGet(error, 'response');
  return (
    statusFrom(safeGet(error, 'status')) ??
    statusFrom(safeGet(error, 'statusCode')) ??
    statusFrom(safeGet(response, 'status')) ??
    statusFrom(safeGet(response, 'statusCode')) ??
    (isHttpStatus(code) ? code : undefined)
  );
}

function headerValue(value: unknown): number | string | undefined {
  const first = safeIsArray(value) ? safeGet(value, 0) : value;
  return typeof first === 'string' || typeof first === 'number' ? first : undefined;
}

/** A header from a `Headers`/`Map`-like object (`.get`) or a plain object, by lower-case name. */
function header(headers: unknown, name: string): number | string | undefined {
  if (!isObjectLike(headers)) return undefined;
  const get = safeGet(headers, 'get');
  if (typeof get === 'function') {
    try {
      const found = headerValue(get.call(headers, name));
      if (found !== undefined) return found;
    } catch {
      // not a Headers-like `get`: fall back to reading properties
    }
  }
  const direct = headerValue(safeGet(headers, name));
  if (direct !== undefined) return direct;
  try {
    let seen = 0;
    for (const key in headers) {
      if (++seen > MAX_HEADER_KEYS) break;
      if (key.toLowerCase() === name) return headerValue(safeGet(headers, key));
    }
  } catch {
    // a Proxy whose ownKeys trap throws
  }
  return undefined;
}

function retryAfterHints(error: object): RetryAfterHint[] {
  const hints: RetryAfterHint[] = [];
  const add = (kind: RetryAfterHint['kind'], value: unknown) => {
    const read = headerValue(value);
    if (read !== undefined) hints.push({ kind, value: read });
  };
  const response = safeGet(error, 'response');
  const data = safeGet(error, 'data');
  add('ms', safeGet(error, 'retryAfterMs'));
  for (const headers of [safeGet(error, 'headers'), safeGet(response, 'headers')]) {
    add('ms', header(headers, 'retry-after-ms'));
    add('header', header(headers, 'retry-after'));
  }
  add('header', safeGet(error, 'retryAfter'));
  add('ms', safeGet(data, 'retryAfterMs'));
  add('header', safeGet(data, 'retryAfter'));
  return hints;
}

/** The longest `data.reason` kept (the registry's reasons are short words). */
const MAX_REASON = 64;

function registryData(data: unknown): RegistryData | undefined {
  if (!isObjectLike(data)) return undefined;
  const retryAfterMs = safeGet(data, 'retryAfterMs');
  const reason = safeGet(data, 'reason');
  const found: RegistryData = {
    ...(typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0
      ? { retryAfterMs }
      : {}),
    ...(safeGet(data, 'notProcessed') === true ? { notProcessed: true } : {}),
    ...(safeGet(data, 'requiresUserAction') === true ? { requiresUserAction: true } : {}),
    ...(typeof reason === 'string' && reason.length <= MAX_REASON ? { reason } : {}),
  };
  return Object.keys(found).length > 0 ? found : undefined;
}

/** The text of a `CallToolResult`'s text blocks, joined by new lines. */
function toolResultText(result: object): string | undefined {
  const content = safeGet(result, 'content');
  const texts: string[] = [];
  for (let i = 0; i < 16; i++) {
    const block = safeGet(content, i);
    if (block === undefined) break;
    const text = safeString(block, 'text');
    if (text !== undefined) texts.push(text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function factsOf(value: unknown, depth: number): ErrorFacts | undefined {
  if (typeof value === 'string')
    return { depth, message: cut(value), hasData: false, retryAfter: [], toolResult: false };
  if (!isObjectLike(value)) return undefined;
  const toolResult =
    depth === 0 && safeGet(value, 'isError') === true && safeIsArray(safeGet(value, 'content'));
  const name = safeString(value, 'name');
  const message = toolResult ? toolResultText(value) : safeString(value, 'message');
  const rawCode = safeGet(value, 'code');
  const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? rawCode : undefined;
  const rawErrno = safeGet(value, 'errno');
  const errno = typeof rawErrno === 'string' || typeof rawErrno === 'number' ? rawErrno : undefined;
  const status = statusOf(value, code);
  const data = safeGet(value, 'data');
  const registry = registryData(data);
  const resilience = hasResilienceBrand(value)
    ? readClassification(safeGet(value, 'classification'))
    : undefined;
  return {
    depth,
    ...(name !== undefined ? { name: name.slice(0, 256) } : {}),
    ...(message !== undefined ? { message: cut(message) } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(errno !== undefined ? { errno } : {}),
    ...(status !== undefined ? { status } : {}),
    hasData: data !== undefined,
    ...(registry !== undefined ? { registry } : {}),
    retryAfter: retryAfterHints(value),
    ...(resilience !== undefined ? { resilience } : {}),
    toolResult,
  };
}

/**
 * Reads an error and the errors behind it (`cause`, the first `errors` of an `AggregateError`), nearest first,
 * at most 8 levels deep, each object once (circular chains end), never throwing.
 */
export function inspectError(error: unknown): ErrorFacts[] {
  const facts: ErrorFacts[] = [];
  const seen = new Set<object>();
  const queue: Array<{ readonly value: unknown; readonly depth: number }> = [{ value: error, depth: 0 }];
  for (let i = 0; i < queue.length && facts.length < MAX_NODES; i++) {
    const { value, depth } = queue[i]!;
    if (isObjectLike(value)) {
      if (seen.has(value)) continue;
      seen.add(value);
    }
    const found = factsOf(value, depth);
    if (found === undefined) continue;
    facts.push(found);
    if (depth >= MAX_DEPTH || !isObjectLike(value)) continue;
    const cause = safeGet(value, 'cause');
    if (cause !== undefined && cause !== null) queue.push({ value: cause, depth: depth + 1 });
    const errors = safeGet(value, 'errors');
    if (safeIsArray(errors)) {
      for (let j = 0; j < MAX_AGGREGATED; j++) {
        const inner = safeGet(errors, j);
        if (inner !== undefined && inner !== null) queue.push({ value: inner, depth: depth + 1 });
      }
    }
  }
  return facts;
}
