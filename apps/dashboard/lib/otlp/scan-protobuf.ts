import type protobuf from 'protobufjs';
import { Element, type ElementBudget } from './element-budget';
import type { ElementScanner } from './element-scanner';
import { OtlpDecodeError } from './model';

/*
 * A walk over the protobuf wire format of an OTLP request that counts its repeated elements against an
 * `ElementBudget` before protobufjs builds a single object: 10 million empty data points fit in 20 MB (2 bytes
 * each), and decoding them would take seconds and gigabytes. Nothing is allocated per element. A field whose
 * wire type does not match the schema is malformed (protobufjs would read it as something else than counted).
 * It is fed the body as it is decompressed (`feed` with the bytes so far): the open messages are a stack of
 * plain arrays, and a field cut by the end of the bytes so far is read again when more arrive.
 */

interface FieldPlan {
  readonly name: string;
  /** The message type of a message field (undefined for scalars). */
  message?: TypePlan;
  /** Expected wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). */
  readonly wire: number;
  readonly repeated: boolean;
  /** Length-delimited scalars: a string or bytes whose length is checked. */
  readonly text: boolean;
  /** Elements counted per occurrence. */
  readonly counts: readonly Element[];
}

interface TypePlan {
  readonly name: string;
  /** Indexed by field number. */
  readonly fields: Array<FieldPlan | undefined>;
}

const WIRE: Record<string, number> = {
  double: 1,
  fixed64: 1,
  sfixed64: 1,
  float: 5,
  fixed32: 5,
  sfixed32: 5,
  string: 2,
  bytes: 2,
};

/** The elements a field's occurrence counts as, by field name (and owner type, for `values`). */
function countsOf(owner: string, field: string): Element[] {
  if (field === 'resourceMetrics' || field === 'resourceSpans') return [Element.Resources];
  if (field === 'scopeMetrics' || field === 'scopeSpans') return [Element.Scopes];
  if (field === 'metrics') return [Element.Metrics];
  if (field === 'dataPoints') return [Element.Points];
  if (field === 'spans') return [Element.Spans];
  if (field === 'events') return [Element.Events];
  if (field === 'attributes') return [Element.Attributes];
  if (field === 'values' && owner === 'KeyValueList') return [Element.Attributes, Element.Members];
  if (field === 'values' && owner === 'ArrayValue') return [Element.Members];
  if (field === 'bucketCounts' || field === 'explicitBounds') return [Element.Buckets];
  return [];
}

const plans = new Map<protobuf.Type, TypePlan>();

function planOf(type: protobuf.Type): TypePlan {
  const known = plans.get(type);
  if (known) return known;
  const plan: TypePlan = { name: type.name, fields: [] };
  plans.set(type, plan); // before the fields: the schema is recursive (AnyValue ↔ ArrayValue, KeyValueList)
  for (const f of type.fieldsArray) {
    f.resolve();
    const isMessage = f.resolvedType !== null && 'fieldsArray' in f.resolvedType;
    const field: FieldPlan = {
      name: `${type.name}.${f.name}`,
      wire: isMessage ? 2 : (WIRE[f.type] ?? 0),
      repeated: f.repeated,
      text: !isMessage && (f.type === 'string' || f.type === 'bytes'),
      counts: countsOf(type.name, f.name),
    };
    plan.fields[f.id] = field;
    if (isMessage) field.message = planOf(f.resolvedType as protobuf.Type);
  }
  return plan;
}

const malformed = (what: string) => new OtlpDecodeError(`invalid protobuf: ${what}`);

/** A varint not complete within the bytes so far. */
const MORE = -1;

export class WireScanner implements ElementScanner {
  /** The next byte to read (may be beyond the bytes so far, after a skipped field). */
  private pos = 0;
  /** The open message (or group) at each depth: its plan (undefined in a group), end and field. */
  private depth = 0;
  private readonly plans: Array<TypePlan | undefined> = [];
  private readonly ends: number[] = [];
  private readonly fields: Array<FieldPlan | undefined> = [];
  /** The field number of an open group (-1 for messages). */
  private readonly groups: number[] = [];
  /** A packed varint field being counted: its end (-1 for none) and plan. */
  private packedEnd = -1;
  private packedField: FieldPlan | undefined;

  constructor(
    plan: TypePlan,
    private readonly budget: ElementBudget,
  ) {
    this.plans[0] = plan;
    this.ends[0] = Number.POSITIVE_INFINITY; // until the body's length is known
    this.groups[0] = -1;
  }

  feed(buf: Uint8Array, n: number): void {
    this.run(buf, n, false);
  }

  finish(buf: Uint8Array, n: number): void {
    for (let d = 0; d <= this.depth; d++) {
      // the request and the groups in it end with the body; a message cannot end beyond it
      if (this.ends[d] === Number.POSITIVE_INFINITY) this.ends[d] = n;
      else if (this.ends[d]! > n) throw malformed(`${this.fields[d]?.name} longer than its message`);
    }
    this.run(buf, n, true);
  }

  /** A varint at `pos` within `n` bytes, or `MORE`; `pos` moves past it. */
  private varint(buf: Uint8Array, n: number, final: boolean): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= n) {
        if (final) throw malformed('truncated varint');
        return MORE;
      }
      const b = buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw malformed('varint longer than 10 bytes');
  }

  private open(plan: TypePlan | undefined, end: number, field: FieldPlan | undefined, group: number): void {
    const d = ++this.depth;
    this.budget.nested(d);
    this.plans[d] = plan;
    this.ends[d] = end;
    this.fields[d] = field;
    this.groups[d] = group;
  }

  private count(f: FieldPlan, n: number): void {
    const counts = f.counts;
    for (let i = 0; i < counts.length; i++) this.budget.add(counts[i]!, n);
  }

  /** Moves `pos` past `n` bytes of the message ending at `end`. */
  private skip(n: number, end: number, what: string): void {
    if (this.pos + n > end) throw malformed(what);
    this.pos += n;
  }

  private run(buf: Uint8Array, n: number, final: boolean): void {
    for (;;) {
      if (this.packedEnd >= 0 && !this.countPacked(buf, n)) {
        if (final) throw malformed('truncated field');
        return;
      }
      const d = this.depth;
      const end = this.ends[d]!;
      if (this.pos >= end) {
        if (this.pos > end) throw malformed('field beyond its message');
        if (d === 0) return;
        if (this.groups[d]! >= 0) throw malformed('unterminated group');
        this.depth--;
        continue;
      }
      if (this.pos >= n) return; // more bytes to come (at the end, every open message ends within them)
      const start = this.pos;
      if (!this.field(buf, n, final, end)) {
        this.pos = start; // read again when more bytes arrived
        return;
      }
    }
  }

  /** Reads one field at `pos` of the open message ending at `end`; false when it is cut by the end of `n`. */
  private field(buf: Uint8Array, n: number, final: boolean, end: number): boolean {
    const tag = this.varint(buf, n, final);
    if (tag === MORE) return false;
    const id = Math.floor(tag / 8);
    const wire = tag & 7;
    const d = this.depth;
    const group = this.groups[d]!;
    if (group >= 0 && wire === 4) {
      if (id !== group) throw malformed('mismatched end group');
      this.depth--;
      return true;
    }
    const f = group >= 0 ? undefined : this.plans[d]!.fields[id];
    if (!f) return this.skipWire(buf, n, final, end, wire, id);
    if (wire === 2 && f.repeated && f.wire !== 2) return this.packed(buf, n, final, end, f);
    if (wire !== f.wire) throw malformed(`${f.name} has wire type ${wire}, expected ${f.wire}`);
    if (wire !== 2) {
      if (!this.skipWire(buf, n, final, end, wire, id)) return false;
      this.count(f, 1);
      return true;
    }
    const len = this.varint(buf, n, final);
    if (len === MORE) return false;
    this.count(f, 1);
    if (this.pos + len > end) throw malformed(`${f.name} longer than its message`);
    if (f.message) {
      if (len > 0) this.open(f.message, this.pos + len, f, -1);
      else this.budget.nested(d + 1); // an empty message: nothing to walk
    } else {
      if (f.text) this.budget.string(len, f.name);
      this.pos += len;
    }
    return true;
  }

  /** Skips a field of `wire` type (unknown fields, scalars); false when cut by the end of `n`. */
  private skipWire(
    buf: Uint8Array,
    n: number,
    final: boolean,
    end: number,
    wire: number,
    id: number,
  ): boolean {
    if (wire === 0) return this.varint(buf, n, final) !== MORE;
    if (wire === 1) this.skip(8, end, 'truncated field');
    else if (wire === 5) this.skip(4, end, 'truncated field');
    else if (wire === 2) {
      const len = this.varint(buf, n, final);
      if (len === MORE) return false;
      this.skip(len, end, 'truncated field');
    } else if (wire === 3) this.open(undefined, end, undefined, id);
    else throw malformed(`invalid wire type ${wire}`);
    return true;
  }

  /** A packed repeated scalar: fixed-size elements counted from its length, varints as they arrive. */
  private packed(buf: Uint8Array, n: number, final: boolean, end: number, f: FieldPlan): boolean {
    const len = this.varint(buf, n, final);
    if (len === MORE) return false;
    const stop = this.pos + len;
    if (stop > end) throw malformed(`${f.name} longer than its message`);
    if (f.wire === 1 || f.wire === 5) {
      this.count(f, Math.floor(len / (f.wire === 1 ? 8 : 4)));
      this.pos = stop;
      return true;
    }
    this.packedEnd = stop;
    this.packedField = f;
    return true;
  }

  /** Counts the varints of the packed field being read, up to `n`; true once it is done. */
  private countPacked(buf: Uint8Array, n: number): boolean {
    const stop = Math.min(this.packedEnd, n);
    let count = 0;
    for (let i = this.pos; i < stop; i++) if (buf[i]! < 0x80) count++;
    this.count(this.packedField!, count);
    this.pos = stop;
    if (stop < this.packedEnd) return false;
    this.packedEnd = -1;
    return true;
  }
}

/** The scanner of a protobuf-encoded `type` message. */
export const wireScanner = (type: protobuf.Type, budget: ElementBudget): WireScanner =>
  new WireScanner(planOf(type), budget);

/**
 * Counts the elements of a protobuf-encoded `type` message against `budget` (throws `OtlpLimitError` at the
 * first one beyond, `OtlpDecodeError` when the wire format is broken).
 */
export function scanProtobuf(body: Uint8Array, type: protobuf.Type, budget: ElementBudget): void {
  wireScanner(type, budget).finish(body, body.length);
}
