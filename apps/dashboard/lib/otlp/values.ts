import { type Attrs, type AttrValue, OtlpDecodeError } from './model';

/*
 * Readers for the values of a decoded OTLP message, tolerant of both encodings: protobufjs gives Long objects
 * for 64-bit integers and Buffers for bytes; OTLP/JSON gives 64-bit integers as decimal strings or numbers,
 * trace and span ids as hex, other bytes as base64, doubles as numbers or "NaN"/"Infinity"/"-Infinity".
 */

type Obj = Record<string, unknown>;

const TWO_32 = 4294967296;

export const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null;

const has = (o: Obj, key: string): boolean =>
  Object.hasOwn(o, key) && o[key] !== undefined && o[key] !== null;

export { has };

const INT64_MIN = -(2n ** 63n);
/** The longest integer text read: `-9223372036854775808` is 20 characters; leading zeros and blanks aside. */
const MAX_INT_CHARS = 32;
const UINT64_MAX = 2n ** 64n - 1n;

/** Within what a 64-bit field can hold (int64 or fixed64/uint64: -2^63 .. 2^64-1). */
function inRange(value: bigint, what: string): number {
  if (value < INT64_MIN || value > UINT64_MAX)
    throw new OtlpDecodeError(`${what}: integer beyond the 64-bit range`);
  return Number(value);
}

/**
 * A 64-bit integer (Long, string, number, bigint) as a JS number (exact below 2^53). A non-integer, or an
 * integer no 64-bit field can hold, is an `OtlpDecodeError` naming the field.
 */
export function int64(value: unknown, what: string): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value; // within any 64-bit range, no BigInt to make
    if (Number.isInteger(value)) return inRange(BigInt(value), what);
  } else if (typeof value === 'string') {
    // Checked for length first: BigInt of 19 million digits takes seconds (2^64 has 20 digits).
    if (value.length > MAX_INT_CHARS)
      throw new OtlpDecodeError(`${what}: integer text longer than ${MAX_INT_CHARS} characters`);
    if (/^-?\d+$/.test(value.trim())) return inRange(BigInt(value.trim()), what);
  } else if (typeof value === 'bigint') {
    return inRange(value, what);
  } else if (isObject(value) && typeof value.low === 'number' && typeof value.high === 'number') {
    const low = value.low >>> 0;
    const high = value.unsigned === true ? value.high >>> 0 : value.high;
    return high * TWO_32 + low;
  } else if (value === undefined || value === null) {
    return 0;
  }
  throw new OtlpDecodeError(`${what}: expected a 64-bit integer`);
}

/** A double: number, or the JSON strings "NaN", "Infinity", "-Infinity" (and numeric strings). */
export function double(value: unknown, what: string): number {
  if (typeof value === 'number') return value;
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') {
    if (value === 'NaN') return Number.NaN;
    if (value === 'Infinity') return Number.POSITIVE_INFINITY;
    if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
    const n = Number(value);
    if (value.trim() !== '' && !Number.isNaN(n)) return n;
  }
  if (isObject(value) && typeof value.low === 'number') return int64(value, what);
  throw new OtlpDecodeError(`${what}: expected a number`);
}

/** Nanoseconds since the epoch → milliseconds (float). */
export const nanosToMs = (value: unknown, what: string): number => int64(value, what) / 1e6;

const HEX = /^[0-9a-fA-F]*$/;

/** A trace or span id: bytes (Buffer) or, in JSON, hex (case-insensitive); base64 is accepted as a fallback. */
export function id(input: unknown, bytes: number, what: string): string {
  let value = input;
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) {
    // protobufjs's default for an absent bytes field is an empty array
    if (value.length === 0) return '';
    value = Uint8Array.from(value as number[]);
  }
  if (value instanceof Uint8Array) {
    if (value.length === 0) return '';
    if (value.length !== bytes) throw new OtlpDecodeError(`${what}: expected ${bytes} bytes`);
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  }
  if (typeof value === 'string') {
    if (value === '') return '';
    if (value.length === bytes * 2 && HEX.test(value)) return value.toLowerCase();
    const decoded = Buffer.from(value, 'base64');
    if (decoded.length === bytes && /^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return decoded.toString('hex');
  }
  throw new OtlpDecodeError(`${what}: expected ${bytes * 2} hex characters`);
}

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};
const TEMPORALITIES: Record<string, number> = {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0,
  AGGREGATION_TEMPORALITY_DELTA: 1,
  AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
};

/** An enum: an integer as the spec requires, or (leniently) its name. */
export function enumValue(value: unknown, names: 'kind' | 'status' | 'temporality', what: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const table = names === 'kind' ? SPAN_KINDS : names === 'status' ? STATUS_CODES : TEMPORALITIES;
    const found = table[value];
    if (found !== undefined) return found;
    if (/^\d+$/.test(value)) return Number(value);
  }
  throw new OtlpDecodeError(`${what}: expected an enum integer`);
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A list field: a missing one is empty; anything else than an array is malformed. */
export function list(value: unknown, what: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  throw new OtlpDecodeError(`${what}: expected an array`);
}

const MAX_DEPTH = 8;

/** Bounds on decoded attributes. */
export interface AttributeLimits {
  /** String (and bytes) values are cut to this many characters. */
  readonly maxLength: number;
  /** Attributes kept per map, elements kept per array (the rest is dropped). */
  readonly maxCount: number;
}

export const ATTRIBUTE_DEFAULTS: AttributeLimits = Object.freeze({ maxLength: 1024, maxCount: 128 });

const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

function anyValue(value: unknown, depth: number, limits: AttributeLimits): AttrValue {
  if (!isObject(value) || depth > MAX_DEPTH) return null;
  if (has(value, 'stringValue')) return cut(str(value.stringValue), limits.maxLength);
  if (has(value, 'boolValue')) return value.boolValue === true;
  if (has(value, 'intValue')) return int64(value.intValue, 'intValue');
  if (has(value, 'doubleValue')) return double(value.doubleValue, 'doubleValue');
  if (has(value, 'arrayValue')) {
    const arr = isObject(value.arrayValue) ? list(value.arrayValue.values, 'arrayValue.values') : [];
    return arr.slice(0, limits.maxCount).map((v) => anyValue(v, depth + 1, limits));
  }
  if (has(value, 'kvlistValue')) {
    return isObject(value.kvlistValue) ? attributes(value.kvlistValue.values, limits, depth + 1) : {};
  }
  if (has(value, 'bytesValue')) {
    const b = value.bytesValue;
    return cut(b instanceof Uint8Array ? Buffer.from(b).toString('base64') : str(b), limits.maxLength);
  }
  return null;
}

/**
 * A `repeated KeyValue` as an object without prototype (a key `__proto__`, `toString` or `valueOf` is a key like
 * any other): at most `maxCount` keys, values cut to `maxLength`.
 */
export function attributes(value: unknown, limits: AttributeLimits = ATTRIBUTE_DEFAULTS, depth = 0): Attrs {
  const result: Attrs = Object.create(null) as Attrs;
  if (value === undefined || value === null) return result;
  if (!Array.isArray(value)) throw new OtlpDecodeError('attributes: expected an array');
  let n = 0;
  for (const kv of value) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    if (n++ >= limits.maxCount) break;
    result[cut(kv.key, limits.maxLength)] = anyValue(kv.value, depth, limits);
  }
  return result;
}
