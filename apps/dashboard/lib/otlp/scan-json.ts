import { Element, type ElementBudget, OtlpLimitError } from './element-budget';

/*
 * A single pass over the bytes of an OTLP/JSON request that counts its elements against an `ElementBudget`
 * before `JSON.parse` builds anything: `{}` is 3 bytes, so 20 MB of JSON can hold 7 million empty data points.
 * It tracks only what it needs (containers, the key each array is under, string and number lengths) and
 * allocates nothing per element. It is laxer than JSON.parse: where it finds broken syntax it stops, and
 * JSON.parse (which fails at or before that point) reports the error.
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

/** The code of a key (its raw bytes between the quotes); escaped keys are decoded when short enough. */
function keyCode(buf: Uint8Array, start: number, end: number): number {
  const len = end - start;
  const candidates = BY_LENGTH[len];
  if (candidates) {
    for (const [bytes, code] of candidates) {
      let i = 0;
      while (i < len && buf[start + i] === bytes[i]) i++;
      if (i === len) return code;
    }
  }
  if (len > 128) return NONE;
  for (let i = start; i < end; i++) if (buf[i] === 0x5c) return escapedKeyCode(buf, start, end);
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

/** The closing quote of the string opening at `open`, or -1. */
function stringEnd(buf: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = buf.indexOf(0x22, at + 1);
    if (at < 0) return -1;
    let slashes = 0;
    while (buf[at - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/** Bytes of a number or literal token: digits, letters, `+`, `-`, `.`. */
const TOKEN = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const c = String.fromCharCode(b);
  if (/[0-9A-Za-z+\-.]/.test(c)) TOKEN[b] = 1;
}

class JsonScanner {
  private depth = 0;
  private readonly kind: Uint8Array;
  /** Arrays: the element they count (or NONE, KV_VALUES); objects: their own code. */
  private readonly info: Int16Array;
  private key = NONE;
  private expectKey = false;

  constructor(
    private readonly buf: Uint8Array,
    private readonly budget: ElementBudget,
  ) {
    this.kind = new Uint8Array(budget.depth + 2);
    this.info = new Int16Array(budget.depth + 2);
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

  /** Scans the whole body; returns early (leaving the error to JSON.parse) at broken syntax. */
  run(): void {
    const buf = this.buf;
    const n = buf.length;
    let i = 0;
    while (i < n) {
      const c = buf[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a) i++;
      else if (c === 0x7b || c === 0x5b) {
        this.open(c === 0x7b ? OBJ : ARR);
        i++;
      } else if (c === 0x7d || c === 0x5d) {
        if (this.depth === 0) return;
        this.depth--;
        i++;
      } else if (c === 0x2c) {
        if (this.kind[this.depth] === OBJ) this.expectKey = true;
        i++;
      } else if (c === 0x22) {
        const end = stringEnd(buf, i);
        if (end < 0) return;
        this.budget.string(end - i - 1, 'a JSON string');
        if (this.kind[this.depth] === OBJ && this.expectKey) {
          this.key = keyCode(buf, i + 1, end);
          this.expectKey = false;
        } else this.value();
        i = end + 1;
      } else {
        let j = i;
        while (j < n && TOKEN[buf[j]!] === 1) j++;
        if (j === i) return;
        if (j - i > this.budget.numberChars) {
          if (c === 0x2d || (c >= 0x30 && c <= 0x39))
            throw new OtlpLimitError(
              `a JSON number of ${j - i} characters (at most ${this.budget.numberChars})`,
            );
          return;
        }
        this.value();
        i = j;
      }
    }
  }
}

/** Counts the elements of an OTLP/JSON body against `budget` (throws `OtlpLimitError` at the first beyond). */
export function scanJson(body: Uint8Array, budget: ElementBudget): void {
  new JsonScanner(body, budget).run();
}
