import { Element, type ElementBudget, OtlpLimitError } from './element-budget';
import type { ElementScanner } from './element-scanner';

/*
 * A single pass over the bytes of an OTLP/JSON request that counts its elements against an `ElementBudget`
 * before `JSON.parse` builds anything: `{}` is 3 bytes, so 20 MB of JSON can hold 7 million empty data points.
 * It tracks only what it needs (containers, the key each array is under, string and number lengths) and
 * allocates nothing per element. It is laxer than JSON.parse: where it finds broken syntax it stops, and
 * JSON.parse (which fails at or before that point) reports the error. It is fed the body as it is decompressed
 * (`feed` with the bytes so far), so the first element beyond the budget stops the decompression too.
 */

const NONE = -1;
/** The `values` of a kvlist: each is a key-value and a member. */
const KV_VALUES = 20;
const OBJ = 1;
const ARR = 2;
/** Own codes of objects: what a `values` array in them is. */
const UNDER_KVLIST = 1;
const UNDER_ARRAY = 2;
/** Key codes (beside the array elements 0..8). */
const KEY_VALUES = 30;
const KEY_KVLIST = 31;
const KEY_ARRAY = 32;

const KEYS = new Map<string, number>([
  ['resourceMetrics', Element.Resources],
  ['resourceSpans', Element.Resources],
  ['scopeMetrics', Element.Scopes],
  ['scopeSpans', Element.Scopes],
  ['metrics', Element.Metrics],
  ['dataPoints', Element.Points],
  ['spans', Element.Spans],
  ['events', Element.Events],
  ['attributes', Element.Attributes],
  ['bucketCounts', Element.Buckets],
  ['explicitBounds', Element.Buckets],
  ['values', KEY_VALUES],
  ['kvlistValue', KEY_KVLIST],
  ['arrayValue', KEY_ARRAY],
]);

/** The known keys by byte length, to compare raw bytes without making a string of every key. */
const BY_LENGTH: Array<Array<readonly [Uint8Array, number]>> = [];
for (const [key, code] of KEYS) {
  const same = BY_LENGTH[key.length] ?? [];
  same.push([Buffer.from(key, 'latin1'), code]);
  BY_LENGTH[key.length] = same;
}

/**
 * The code of a key (its raw bytes between the quotes); a key with escapes (`escaped`) is decoded when short
 * enough.
 */
function keyCode(buf: Uint8Array, start: number, end: number, escaped: boolean): number {
  const len = end - start;
  if (escaped) return len > 128 ? NONE : escapedKeyCode(buf, start, end);
  const candidates = BY_LENGTH[len];
  if (candidates === undefined) return NONE;
  for (let k = 0; k < candidates.length; k++) {
    const [bytes, code] = candidates[k]!;
    let i = 0;
    while (i < len && buf[start + i] === bytes[i]) i++;
    if (i === len) return code;
  }
  return NONE;
}

/** A key written with escapes (`data\u0050oints`): decoded, then looked up. */
function escapedKeyCode(buf: Uint8Array, start: number, end: number): number {
  try {
    const text = JSON.parse(
      `"${Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1')}"`,
    );
    return KEYS.get(text as string) ?? NONE;
  } catch {
    return NONE;
  }
}

/** Bytes of a number or literal token: digits, letters, `+`, `-`, `.`. */
const TOKEN = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const c = String.fromCharCode(b);
  if (/[0-9A-Za-z+\-.]/.test(c)) TOKEN[b] = 1;
}

/** What each byte starts: skipped, a string, a comma, an opening, a closing, or a number or literal. */
const SKIP = 1;
const QUOTE = 2;
const COMMA = 3;
const OPEN = 4;
const CLOSE = 5;
const CLASS = new Uint8Array(256);
for (const b of [0x20, 0x0a, 0x0d, 0x09, 0x3a]) CLASS[b] = SKIP;
CLASS[0x22] = QUOTE;
CLASS[0x2c] = COMMA;
CLASS[0x7b] = OPEN;
CLASS[0x5b] = OPEN;
CLASS[0x7d] = CLOSE;
CLASS[0x5d] = CLOSE;

/** Where a string or token ends within the bytes so far: its end, `MORE` (it goes on), or `BROKEN`. */
const MORE = -1;
const BROKEN = -2;

export class JsonScanner implements ElementScanner {
  private depth = 0;
  private readonly kind: Uint8Array;
  /** Arrays: the element they count (or NONE, KV_VALUES); objects: their own code. */
  private readonly info: Int16Array;
  private key = NONE;
  private expectKey = false;
  /** The next byte to read. */
  private at = 0;
  /** Broken syntax was found: the rest is JSON.parse's to report. */
  private stopped = false;
  /** The last string ended had escapes. */
  private escaped = false;

  constructor(private readonly budget: ElementBudget) {
    this.kind = new Uint8Array(budget.depth + 2);
    this.info = new Int16Array(budget.depth + 2);
  }

  feed(buf: Uint8Array, n: number): void {
    this.run(buf, n, false);
  }

  finish(buf: Uint8Array, n: number): void {
    this.run(buf, n, true);
  }

  /** A value starts in the current container. */
  private value(): void {
    this.budget.add(Element.Values);
    if (this.kind[this.depth] !== ARR) return;
    const e = this.info[this.depth]!;
    if (e === KV_VALUES) {
      this.budget.add(Element.Attributes);
      this.budget.add(Element.Members);
    } else if (e !== NONE) this.budget.add(e as Element);
  }

  private push(kind: number, info: number): void {
    this.depth++;
    this.budget.nested(this.depth);
    this.kind[this.depth] = kind;
    this.info[this.depth] = info;
  }

  private open(kind: number): void {
    const inObject = this.kind[this.depth] === OBJ;
    this.value();
    if (kind === OBJ) {
      const own = !inObject
        ? 0
        : this.key === KEY_KVLIST
          ? UNDER_KVLIST
          : this.key === KEY_ARRAY
            ? UNDER_ARRAY
            : 0;
      this.push(OBJ, own);
      this.expectKey = true;
      this.key = NONE;
      return;
    }
    let e = NONE;
    if (inObject && this.key >= 0 && this.key <= Element.Buckets) e = this.key;
    else if (inObject && this.key === KEY_VALUES) {
      const own = this.info[this.depth];
      e = own === UNDER_KVLIST ? KV_VALUES : own === UNDER_ARRAY ? Element.Members : NONE;
    }
    this.push(ARR, e);
  }

  /** The closing quote of the string opening at `open` (within `n` bytes), `MORE` or `BROKEN` at the end. */
  private stringEnd(buf: Uint8Array, open: number, n: number, final: boolean): number {
    // A plain loop: OTLP strings are short, and a native search costs more per call than it saves.
    let escaped = false;
    for (let i = open + 1; i < n; i++) {
      const b = buf[i]!;
      if (b === 0x22) {
        this.escaped = escaped;
        return i;
      }
      if (b === 0x5c) {
        escaped = true;
        i++;
      }
    }
    if (final) return BROKEN;
    if (n - open - 1 > this.budget.stringBytes) this.budget.longString('a JSON string');
    return MORE;
  }

  /** The end of the number or literal starting at `start`, `MORE` (it may go on) or `BROKEN`. */
  private tokenEnd(buf: Uint8Array, start: number, n: number, final: boolean): number {
    let j = start;
    while (j < n && TOKEN[buf[j]!] === 1) j++;
    if (j === start) return BROKEN;
    if (j - start > this.budget.numberChars) {
      const c = buf[start]!;
      if (c === 0x2d || (c >= 0x30 && c <= 0x39))
        throw new OtlpLimitError(
          `a JSON number of ${j - start}${j === n && !final ? ' or more' : ''} characters (at most ${this.budget.numberChars})`,
        );
      return BROKEN;
    }
    return j === n && !final ? MORE : j;
  }

  /** Scans the bytes from where it stopped to `n`; stops (leaving the error to JSON.parse) at broken syntax. */
  private run(buf: Uint8Array, n: number, final: boolean): void {
    let i = this.at;
    while (i < n && !this.stopped) {
      const c = CLASS[buf[i]!]!;
      if (c === QUOTE) {
        const end = this.stringEnd(buf, i, n, final);
        if (end === MORE) break;
        if (end === BROKEN) this.stopped = true;
        else {
          this.budget.string(end - i - 1, 'a JSON string');
          if (this.expectKey && this.kind[this.depth] === OBJ) {
            this.key = keyCode(buf, i + 1, end, this.escaped);
            this.expectKey = false;
          } else this.value();
          i = end + 1;
        }
      } else if (c === SKIP) i++;
      else if (c === COMMA) {
        if (this.kind[this.depth] === OBJ) this.expectKey = true;
        i++;
      } else if (c === OPEN) {
        this.open(buf[i] === 0x7b ? OBJ : ARR);
        i++;
      } else if (c === CLOSE) {
        if (this.depth === 0) this.stopped = true;
        else this.depth--;
        i++;
      } else {
        const end = this.tokenEnd(buf, i, n, final);
        if (end === MORE) break;
        if (end === BROKEN) this.stopped = true;
        else {
          this.value();
          i = end;
        }
      }
    }
    this.at = i;
  }
}

/** Counts the elements of an OTLP/JSON body against `budget` (throws `OtlpLimitError` at the first beyond). */
export function scanJson(body: Uint8Array, budget: ElementBudget): void {
  new JsonScanner(budget).finish(body, body.length);
}
