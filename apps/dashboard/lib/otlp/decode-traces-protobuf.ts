import protobuf from 'protobufjs';
import { Rejections } from '../ingest/rejections';
import {
  type Attrs,
  type AttrValue,
  OtlpDecodeError,
  type ResourceSpans,
  type ScopeSpans,
  type Span,
  type SpanEvent,
  type TracesRequest,
} from './model';
import type { AttributeLimits } from './values';

/*
 * An `ExportTraceServiceRequest` read straight from the protobuf wire format into the ingest's shapes (`model.ts`),
 * without protobufjs's intermediate objects (a KeyValue, an AnyValue, a Long and a Buffer per attribute and id):
 * the same result as `ExportTraceServiceRequest.decode` then the generic conversion in `decode.ts`, at a third of
 * the CPU and garbage (bench: the trace ingest's attempt spans per second). It runs on bodies the wire scanner
 * already counted and checked (`scan-protobuf.ts`: element caps, string caps, wire types, lengths), so it only
 * guards what the scanner does not see: every string field is valid UTF-8 (as protobufjs checks), and a broken
 * structure still ends in `OtlpDecodeError`, never a wrong read. protobufjs semantics kept: the last value of a
 * scalar wins, a repeated field appends, a message field given twice is merged, the members of an AnyValue set
 * in one message are all kept and read in the conversion's order (string, bool, int, double, array, kvlist,
 * bytes). Checked against the generic path on real SDK exports and mutated ones (test/decode-traces-protobuf).
 */

/** Events kept per span (OTel's default span event count limit). */
export const MAX_SPAN_EVENTS = 128;
/** AnyValue nesting converted at most (deeper values become null). */
const MAX_VALUE_DEPTH = 8;

const TWO_32 = 4294967296;
const readStrict = (
  protobuf.util as unknown as { utf8: { readStrict(b: Uint8Array, s: number, e: number): string } }
).utf8.readStrict;

/** ASCII strings up to this many bytes are interned (a direct-mapped cache of `INTERNED_SLOTS`). */
const MAX_INTERNED = 48;
const INTERNED_SLOTS = 4096;
const interned: Array<string | undefined> = new Array(INTERNED_SLOTS).fill(undefined);

/** Whether `s` is the ASCII text of `buf[start, stop)`. */
function sameAscii(s: string, buf: Uint8Array, start: number, stop: number): boolean {
  if (s.length !== stop - start) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}

const malformed = (what: string) => new OtlpDecodeError(`invalid protobuf: ${what}`);

/** A byte range of the body (an id, before its length is checked). */
interface Range {
  readonly start: number;
  readonly end: number;
}
const NO_RANGE: Range = { start: 0, end: 0 };

/** An AnyValue as protobufjs holds it: every member that was set (merged across repeats). */
class RawValue {
  string: string | undefined = undefined;
  bool: boolean | undefined = undefined;
  int: number | undefined = undefined;
  double: number | undefined = undefined;
  array: RawValue[] | undefined = undefined;
  kvlist: RawKeyValue[] | undefined = undefined;
  bytes: Range | undefined = undefined;
}
class RawKeyValue {
  key = '';
  value: RawValue | undefined = undefined;
}

class WireReader {
  pos = 0;
  /** The body as a Buffer view (its latin1 and hex slices make flat strings in one call). */
  private readonly view: Buffer;
  constructor(readonly buf: Uint8Array) {
    this.view = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A message's fields must end exactly at its end. */
  done(end: number): void {
    if (this.pos !== end) throw malformed('field beyond its message');
  }

  varint(): number {
    const buf = this.buf;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw malformed('truncated varint');
      const b = buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw malformed('varint longer than 10 bytes');
  }

  /** A varint as protobufjs's LongBits (low and high 32 bits), for int64 and int32. */
  varint64(): { low: number; high: number } {
    let low = 0;
    let high = 0;
    let i = 0;
    for (; i < 4; i++) {
      const b = this.byte();
      low = (low | ((b & 0x7f) << (i * 7))) >>> 0;
      if (b < 0x80) return { low, high };
    }
    const b4 = this.byte();
    low = (low | ((b4 & 0x7f) << 28)) >>> 0;
    high = (b4 & 0x7f) >> 4;
    if (b4 < 0x80) return { low, high };
    for (i = 0; i < 5; i++) {
      const b = this.byte();
      high = (high | ((b & 0x7f) << (i * 7 + 3))) >>> 0;
      if (b < 0x80) return { low, high };
    }
    throw malformed('varint longer than 10 bytes');
  }

  private byte(): number {
    if (this.pos >= this.buf.length) throw malformed('truncated varint');
    return this.buf[this.pos++]!;
  }

  /** The end of a length-delimited field starting at `pos` (its length read), within `end`. */
  sub(end: number): number {
    const len = this.varint();
    const stop = this.pos + len;
    if (stop > end) throw malformed('field longer than its message');
    return stop;
  }

  fixed64(): number {
    const buf = this.buf;
    const p = this.pos;
    if (p + 8 > buf.length) throw malformed('truncated field');
    const low = (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0;
    const high = (buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24)) >>> 0;
    this.pos = p + 8;
    return high * TWO_32 + low;
  }

  double(): number {
    const p = this.pos;
    if (p + 8 > this.buf.length) throw malformed('truncated field');
    this.pos = p + 8;
    return new DataView(this.buf.buffer, this.buf.byteOffset + p, 8).getFloat64(0, true);
  }

  /** A length-delimited string, checked to be UTF-8 (as protobufjs's `stringVerify`). */
  string(end: number): string {
    const stop = this.sub(end);
    const buf = this.buf;
    const start = this.pos;
    this.pos = stop;
    let hash = stop - start;
    for (let i = start; i < stop; i++) {
      const c = buf[i]!;
      if (c >= 0x80) {
        try {
          return readStrict(buf, start, stop);
        } catch (error) {
          throw malformed((error as Error).message);
        }
      }
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    if (stop === start) return '';
    if (stop - start > MAX_INTERNED) return this.view.toString('latin1', start, stop);
    // attribute keys and values repeat on every span: the same string, not a new one per span
    const slot = hash & (INTERNED_SLOTS - 1);
    const known = interned[slot];
    if (known !== undefined && sameAscii(known, buf, start, stop)) return known;
    const made = this.view.toString('latin1', start, stop);
    interned[slot] = made;
    return made;
  }

  range(end: number): Range {
    const stop = this.sub(end);
    const r = { start: this.pos, end: stop };
    this.pos = stop;
    return r;
  }

  /** A field's tag, as protobufjs reads it: at most 5 bytes, within 32 bits. */
  tag(): number {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      const b = this.byte();
      value = (value | ((b & 0x7f) << (i * 7))) >>> 0;
      if (b < 0x80) return value;
    }
    const b = this.byte();
    if (b >= 0x80 || (b & 0x70) !== 0) throw malformed('invalid tag encoding');
    return (value | ((b & 0x0f) << 28)) >>> 0;
  }

  /** Skips a field of wire type `wire` (field number `id`, for groups) within `end`. */
  skip(wire: number, id: number, end: number): void {
    if (id === 0) throw malformed('illegal tag: field number 0');
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else if (wire === 2) this.pos = this.sub(end);
    else if (wire === 3) {
      for (;;) {
        if (this.pos >= end) throw malformed('unterminated group');
        const tag = this.tag();
        if (tag >>> 3 === 0) throw malformed('illegal tag: field number 0');
        if ((tag & 7) === 4) {
          if (tag >>> 3 !== id) throw malformed('invalid end group tag');
          return;
        }
        this.skip(tag & 7, tag >>> 3, end);
      }
    } else throw malformed(`invalid wire type ${wire}`);
    if (this.pos > end) throw malformed('truncated field');
  }

  hex(r: Range): string {
    return this.view.toString('hex', r.start, r.end);
  }

  base64(r: Range): string {
    return this.view.toString('base64', r.start, r.end);
  }
}

/** The field tag's number and wire type, read by each message's loop. */
let fieldId = 0;
let fieldWire = 0;

/** Reads the next tag of a message (its number and wire type into `fieldId`, `fieldWire`). */
function nextField(r: WireReader): void {
  const tag = r.tag();
  fieldId = tag >>> 3;
  fieldWire = tag & 7;
}

function rawList(r: WireReader, end: number, into: RawValue[]): void {
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2) into.push(rawValue(r, r.sub(end), new RawValue()));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
}

function rawKvList(r: WireReader, end: number, into: RawKeyValue[]): void {
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2) into.push(rawKeyValue(r, r.sub(end)));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
}

function rawValue(r: WireReader, end: number, into: RawValue): RawValue {
  while (r.pos < end) {
    nextField(r);
    const id = fieldId;
    const wire = fieldWire;
    if (id === 1 && wire === 2) into.string = r.string(end);
    else if (id === 2 && wire === 0) into.bool = r.varint() !== 0;
    else if (id === 3 && wire === 0) {
      const { low, high } = r.varint64();
      into.int = (high | 0) * TWO_32 + low;
    } else if (id === 4 && wire === 1) into.double = r.double();
    else if (id === 5 && wire === 2) {
      into.array ??= [];
      rawList(r, r.sub(end), into.array);
    } else if (id === 6 && wire === 2) {
      into.kvlist ??= [];
      rawKvList(r, r.sub(end), into.kvlist);
    } else if (id === 7 && wire === 2) into.bytes = r.range(end);
    else r.skip(wire, id, end);
  }
  r.done(end);
  return into;
}

function rawKeyValue(r: WireReader, end: number): RawKeyValue {
  const kv = new RawKeyValue();
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2) kv.key = r.string(end);
    else if (fieldId === 2 && fieldWire === 2) kv.value = rawValue(r, r.sub(end), kv.value ?? new RawValue());
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return kv;
}

const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

/** As `anyValue` of `values.ts` on protobufjs's AnyValue. */
function convertValue(
  r: WireReader,
  v: RawValue | undefined,
  depth: number,
  limits: AttributeLimits,
): AttrValue {
  if (v === undefined || depth > MAX_VALUE_DEPTH) return null;
  if (v.string !== undefined) return cut(v.string, limits.maxLength);
  if (v.bool !== undefined) return v.bool;
  if (v.int !== undefined) return v.int;
  if (v.double !== undefined) return v.double;
  if (v.array !== undefined)
    return v.array.slice(0, limits.maxCount).map((x) => convertValue(r, x, depth + 1, limits));
  if (v.kvlist !== undefined) return convertAttributes(r, v.kvlist, limits, depth + 1);
  if (v.bytes !== undefined) return cut(r.base64(v.bytes), limits.maxLength);
  return null;
}

/** As `attributes` of `values.ts`: an object without prototype, at most `maxCount` keys. */
function convertAttributes(
  r: WireReader,
  kvs: readonly RawKeyValue[],
  limits: AttributeLimits,
  depth = 0,
): Attrs {
  const result: Attrs = Object.create(null) as Attrs;
  const n = Math.min(kvs.length, limits.maxCount);
  for (let i = 0; i < n; i++) {
    const kv = kvs[i]!;
    result[cut(kv.key, limits.maxLength)] = convertValue(r, kv.value, depth, limits);
  }
  return result;
}

interface RawEvent {
  time: number;
  name: string;
  attributes: RawKeyValue[];
}

function rawEvent(r: WireReader, end: number): RawEvent {
  const e: RawEvent = { time: 0, name: '', attributes: [] };
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 1) e.time = r.fixed64();
    else if (fieldId === 2 && fieldWire === 2) e.name = r.string(end);
    else if (fieldId === 3 && fieldWire === 2) e.attributes.push(rawKeyValue(r, r.sub(end)));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return e;
}

class RawSpan {
  traceId = NO_RANGE;
  spanId = NO_RANGE;
  parentSpanId = NO_RANGE;
  name = '';
  kind = 0;
  start = 0;
  end = 0;
  readonly attributes: RawKeyValue[] = [];
  readonly events: RawEvent[] = [];
  statusCode = 0;
  statusMessage = '';
}

function rawStatus(r: WireReader, end: number, s: RawSpan): void {
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 2 && fieldWire === 2) s.statusMessage = r.string(end);
    else if (fieldId === 3 && fieldWire === 0) s.statusCode = r.varint64().low | 0;
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
}

/** One length-delimited field of a Span; false when it is not one the span reads. */
function spanBytesField(r: WireReader, id: number, end: number, s: RawSpan): boolean {
  if (id === 1) s.traceId = r.range(end);
  else if (id === 2) s.spanId = r.range(end);
  else if (id === 3)
    r.string(end); // traceState: not kept, but checked as protobufjs does
  else if (id === 4) s.parentSpanId = r.range(end);
  else if (id === 5) s.name = r.string(end);
  else if (id === 9) s.attributes.push(rawKeyValue(r, r.sub(end)));
  else if (id === 11) s.events.push(rawEvent(r, r.sub(end)));
  else if (id === 15) rawStatus(r, r.sub(end), s);
  else return false;
  return true;
}

function rawSpan(r: WireReader, end: number): RawSpan {
  const s = new RawSpan();
  while (r.pos < end) {
    nextField(r);
    const id = fieldId;
    const wire = fieldWire;
    if (wire === 2 && spanBytesField(r, id, end, s)) continue;
    if (wire === 1 && id === 7) s.start = r.fixed64();
    else if (wire === 1 && id === 8) s.end = r.fixed64();
    else if (wire === 0 && id === 6) s.kind = r.varint64().low | 0;
    else r.skip(wire, id, end); // dropped counts, flags, links, unknown fields
  }
  r.done(end);
  return s;
}

/** An id of `bytes` bytes as hex ('' when absent), or the reason it is refused. */
function idHex(r: WireReader, range: Range, bytes: number, what: string): string {
  const n = range.end - range.start;
  if (n === 0) return '';
  if (n !== bytes) throw new OtlpDecodeError(`${what}: expected ${bytes} bytes`);
  return r.hex(range);
}

function convertSpan(r: WireReader, s: RawSpan, limits: AttributeLimits): Span {
  const events: SpanEvent[] = [];
  for (let i = 0; i < s.events.length && i < MAX_SPAN_EVENTS; i++) {
    const e = s.events[i]!;
    events.push({
      name: cut(e.name, limits.maxLength),
      timeMs: e.time / 1e6,
      attributes: convertAttributes(r, e.attributes, limits),
    });
  }
  return {
    traceId: idHex(r, s.traceId, 16, 'traceId'),
    spanId: idHex(r, s.spanId, 8, 'spanId'),
    parentSpanId: idHex(r, s.parentSpanId, 8, 'parentSpanId'),
    name: cut(s.name, limits.maxLength),
    kind: s.kind,
    startMs: s.start / 1e6,
    endMs: s.end / 1e6,
    attributes: convertAttributes(r, s.attributes, limits),
    events,
    statusCode: s.statusCode,
    statusMessage: cut(s.statusMessage, limits.maxLength),
  };
}

/** A span read and converted, or counted in `rejections` with the reason. */
function readSpan(
  r: WireReader,
  end: number,
  limits: AttributeLimits,
  rejections: Rejections,
): Span | undefined {
  const raw = rawSpan(r, end);
  let span: Span;
  try {
    span = convertSpan(r, raw, limits);
  } catch (error) {
    rejections.add(1, `span: ${error instanceof OtlpDecodeError ? error.message : 'unreadable value'}`);
    return undefined;
  }
  if (span.traceId !== '' && span.spanId !== '') return span;
  rejections.add(1, 'span without traceId or spanId');
  return undefined;
}

/** The name of an InstrumentationScope (its other fields checked, not kept). */
function scopeName(r: WireReader, end: number, name: string): string {
  let scope = name;
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2) scope = r.string(end);
    else if (fieldId === 2 && fieldWire === 2)
      r.string(end); // version
    else if (fieldId === 3 && fieldWire === 2) rawKeyValue(r, r.sub(end));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return scope;
}

/** The spans of a ScopeSpans message (its scope's name), refusals counted in `rejections`. */
function scopeSpans(
  r: WireReader,
  end: number,
  limits: AttributeLimits,
  rejections: Rejections,
  total: { n: number },
) {
  let scope = '';
  const spans: Span[] = [];
  while (r.pos < end) {
    nextField(r);
    if (fieldWire === 2 && fieldId === 1) scope = scopeName(r, r.sub(end), scope);
    else if (fieldWire === 2 && fieldId === 2) {
      total.n++;
      const span = readSpan(r, r.sub(end), limits, rejections);
      if (span) spans.push(span);
    } else if (fieldWire === 2 && fieldId === 3)
      r.string(end); // schemaUrl
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return { scope, spans };
}

/** A Resource's attributes, appended to `into` (a Resource given twice is merged). */
function resourceAttrs(r: WireReader, end: number, into: RawKeyValue[]): RawKeyValue[] {
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2) into.push(rawKeyValue(r, r.sub(end)));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return into;
}

function resourceSpans(
  r: WireReader,
  end: number,
  limits: AttributeLimits,
  rejections: Rejections,
  total: { n: number },
): ResourceSpans {
  let resource: RawKeyValue[] | undefined;
  const scopes: ScopeSpans[] = [];
  while (r.pos < end) {
    nextField(r);
    if (fieldWire === 2 && fieldId === 1) resource = resourceAttrs(r, r.sub(end), resource ?? []);
    else if (fieldWire === 2 && fieldId === 2)
      scopes.push(scopeSpans(r, r.sub(end), limits, rejections, total));
    else if (fieldWire === 2 && fieldId === 3)
      r.string(end); // schemaUrl
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  // no Resource message: a plain object, as the generic conversion gives
  return { resource: resource ? convertAttributes(r, resource, limits) : {}, scopes };
}

/**
 * Decodes a protobuf `ExportTraceServiceRequest` whose elements were counted (`scan-protobuf.ts`): the same
 * `TracesRequest` as protobufjs plus `decodeTraces`'s conversion. Throws `OtlpDecodeError` when malformed.
 */
export function decodeTracesProtobuf(body: Uint8Array, limits: AttributeLimits): TracesRequest {
  const r = new WireReader(body);
  const rejections = new Rejections();
  const total = { n: 0 };
  const resources: ResourceSpans[] = [];
  const end = body.length;
  while (r.pos < end) {
    nextField(r);
    if (fieldId === 1 && fieldWire === 2)
      resources.push(resourceSpans(r, r.sub(end), limits, rejections, total));
    else r.skip(fieldWire, fieldId, end);
  }
  r.done(end);
  return {
    resources,
    rejected: rejections.count,
    rejectedReasons: [...rejections.result().reasons],
    spans: total.n,
  };
}
