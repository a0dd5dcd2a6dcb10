import { type ErrorFacts, inspectError, type RetryAfterHint } from './inspectError.js';

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
const DAY = '(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*';
/** IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 form (`Sunday, 06-Nov-94 ...`). */
const IMF_DATE = new RegExp(
  `^${DAY},?\\s+\\d{1,2}[\\s-]${MONTH}[\\s-]\\d{2,4}\\s+\\d{1,2}:\\d{2}:\\d{2}\\s*(?:gmt|utc|ut|z)?$`,
  'i',
);
/** asctime (`Sun Nov  6 08:49:37 1994`), which HTTP reads as GMT. */
const ASCTIME_DATE = new RegExp(`^${DAY}\\s+${MONTH}\\s+\\d{1,2}\\s+\\d{1,2}:\\d{2}:\\d{2}\\s+\\d{4}$`, 'i');
/** ISO 8601 with a zone, which some APIs send instead of an HTTP date. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
/** An IMF-fixdate inside a longer text. */
const IMF_DATE_IN_TEXT = new RegExp(
  `^${DAY},\\s+\\d{1,2}\\s+${MONTH}\\s+\\d{4}\\s+\\d{2}:\\d{2}:\\d{2}\\s+GMT`,
  'i',
);

const SECONDS = /^\d+(?:\.\d+)?$/;
const MAX_HEADER_LENGTH = 64;

/** Phrases that announce a delay. `wait` needs a unit (`wait 3 minutes`), the others default to seconds. */
const PHRASE = /\b(retry[\s_-]?after|try again in|retry in|retrying in|wait(?:\s+for)?)\b\s*[:=]?\s*/gi;
const PIECE =
  /^(\d+(?:\.\d+)?)\s*(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)?(?![a-z])/i;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function unitMs(unit: string): number {
  const lower = unit.toLowerCase();
  if (lower === 'ms' || lower.startsWith('milli') || lower.startsWith('msec')) return UNIT_MS.ms!;
  return UNIT_MS[lower[0]!] ?? UNIT_MS.s!;
}

const validNow = (now: number | undefined): number =>
  typeof now === 'number' && Number.isFinite(now) ? now : Date.now();

/** Whole milliseconds, finite and not negative (`+ 0` turns -0 into 0). */
const finiteDelay = (ms: number): number | undefined =>
  Number.isFinite(ms) && ms >= 0 ? Math.round(ms) + 0 : undefined;

/**
 * Parses a `Retry-After` header value into milliseconds: delay-seconds (`"120"`, also `"1.5"` and numbers) or an
 * HTTP date (IMF-fixdate, RFC 850, asctime; ISO 8601 is accepted too), relative to `now`. A date in the past gives 0.
 * Anything else (negative, garbage, empty) gives `undefined`. Never throws.
 */
export function parseRetryAfterHeader(value: unknown, now?: number): number | undefined {
  if (typeof value === 'number') return value >= 0 ? finiteDelay(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '' || text.length > MAX_HEADER_LENGTH) return undefined;
  if (SECONDS.test(text)) return finiteDelay(Number(text) * 1000);
  let date: number;
  if (IMF_DATE.test(text) || ISO_DATE.test(text)) date = Date.parse(text);
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text} GMT`);
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  return finiteDelay(Math.max(0, date - validNow(now)));
}

/** A duration such as `37s`, `1.5 seconds`, `500ms`, `1m30s`, read from the start of `text`. */
function durationAt(text: string, unitRequired: boolean): number | undefined {
  let rest = text;
  let total = 0;
  let pieces = 0;
  for (;;) {
    const piece = PIECE.exec(rest);
    if (piece === null) break;
    const unit = piece[2];
    if (unit === undefined && (unitRequired || pieces > 0)) break;
    total += Number(piece[1]) * (unit === undefined ? 1000 : unitMs(unit));
    pieces++;
    rest = rest.slice(piece[0].length).trimStart();
    if (unit === undefined || pieces >= 4) break;
  }
  return pieces > 0 ? finiteDelay(total) : undefined;
}

/** A delay announced in a message: "retry after 37s", "try again in 1.5s", "wait 3 minutes", ... */
function retryAfterFromText(text: string, now: number): number | undefined {
  for (const match of text.matchAll(PHRASE)) {
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 64);
    const isWait = match[1]!.toLowerCase().startsWith('wait');
    const delay = durationAt(after, isWait);
    if (delay !== undefined) return delay;
    const date = isWait ? null : IMF_DATE_IN_TEXT.exec(after);
    if (date) return parseRetryAfterHeader(date[0], now);
  }
  return undefined;
}

function fromHint(hint: RetryAfterHint, now: number): number | undefined {
  if (hint.kind === 'header') return parseRetryAfterHeader(hint.value, now);
  const ms =
    typeof hint.value === 'number' ? hint.value : SECONDS.test(hint.value.trim()) ? Number(hint.value) : NaN;
  return finiteDelay(ms);
}

/**
 * The `Retry-After` delay of already inspected errors: structured values first (`retryAfterMs`, the
 * `retry-after-ms` and `retry-after` headers of `headers` or `response.headers`, `retryAfter` in seconds, the same
 * in `data`), nearest error first, then phrases in the messages.
 */
export function retryAfterFromFacts(facts: readonly ErrorFacts[], now?: number): number | undefined {
  const at = validNow(now);
  for (const fact of facts) {
    for (const hint of fact.retryAfter) {
      const delay = fromHint(hint, at);
      if (delay !== undefined) return delay;
    }
  }
  for (const fact of facts) {
    if (fact.message === undefined) continue;
    const delay = retryAfterFromText(fact.message, at);
    if (delay !== undefined) return delay;
  }
  return undefined;
}

/**
 * How long an error asks the caller to wait, in milliseconds, from its headers, properties, cause chain or
 * message; `undefined` when it does not say. `now` (epoch ms, default `Date.now()`) resolves HTTP dates.
 * Never throws.
 */
export function retryAfterMsOf(error: unknown, now?: number): number | undefined {
  try {
    return retryAfterFromFacts(inspectError(error), now);
  } catch {
    return undefined;
  }
}
