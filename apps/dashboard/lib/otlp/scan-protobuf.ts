import type protobuf from 'protobufjs';
import { Element, type ElementBudget } from './element-budget';
import { OtlpDecodeError } from './model';

/*
 * A walk over the protobuf wire format of an OTLP request that counts its repeated elements against an
 * `ElementBudget` before protobufjs builds a single object: 10 million empty data points fit in 20 MB (2 bytes
 * each), and decoding them would take seconds and gigabytes. Nothing is allocated per element. A field whose
 * wire type does not match the schema is malformed (protobufjs would read it as something else than counted).
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

class WireScanner {
  pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly budget: ElementBudget,
  ) {}

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw malformed('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw malformed('varint longer than 10 bytes');
  }

  skip(n: number, end: number): void {
    if (this.pos + n > end) throw malformed('truncated field');
    this.pos += n;
  }

  /** Skips a field of `wire` type (unknown fields, scalars). */
  skipWire(wire: number, field: number, end: number, depth: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.skip(8, end);
    else if (wire === 5) this.skip(4, end);
    else if (wire === 2) this.skip(this.varint(), end);
    else if (wire === 3) this.group(field, end, depth + 1);
    else throw malformed(`invalid wire type ${wire}`);
  }

  private group(field: number, end: number, depth: number): void {
    this.budget.nested(depth);
    while (this.pos < end) {
      const tag = this.varint();
      if ((tag & 7) === 4) {
        if (Math.floor(tag / 8) !== field) throw malformed('mismatched end group');
        return;
      }
      this.skipWire(tag & 7, Math.floor(tag / 8), end, depth);
    }
    throw malformed('unterminated group');
  }

  message(plan: TypePlan, end: number, depth: number): void {
    this.budget.nested(depth);
    while (this.pos < end) {
      const tag = this.varint();
      const id = Math.floor(tag / 8);
      const wire = tag & 7;
      const f = plan.fields[id];
      if (!f) {
        this.skipWire(wire, id, end, depth);
        continue;
      }
      if (wire === 2 && f.repeated && f.wire !== 2) {
        this.packed(f, end);
        continue;
      }
      if (wire !== f.wire) throw malformed(`${f.name} has wire type ${wire}, expected ${f.wire}`);
      for (const e of f.counts) this.budget.add(e);
      if (wire !== 2) {
        this.skipWire(wire, id, end, depth);
        continue;
      }
      const len = this.varint();
      if (this.pos + len > end) throw malformed(`${f.name} longer than its message`);
      if (f.message) {
        const stop = this.pos + len;
        this.message(f.message, stop, depth + 1);
        this.pos = stop;
      } else {
        if (f.text) this.budget.string(len, f.name);
        this.pos += len;
      }
    }
    if (this.pos !== end) throw malformed('field beyond its message');
  }

  /** A packed repeated scalar: its elements counted without reading them. */
  private packed(f: FieldPlan, end: number): void {
    const len = this.varint();
    const stop = this.pos + len;
    if (stop > end) throw malformed(`${f.name} longer than its message`);
    let n = 0;
    if (f.wire === 1) n = Math.floor(len / 8);
    else if (f.wire === 5) n = Math.floor(len / 4);
    else for (let i = this.pos; i < stop; i++) if (this.buf[i]! < 0x80) n++;
    for (const e of f.counts) this.budget.add(e, n);
    this.pos = stop;
  }
}

/**
 * Counts the elements of a protobuf-encoded `type` message against `budget` (throws `OtlpLimitError` at the
 * first one beyond, `OtlpDecodeError` when the wire format is broken).
 */
export function scanProtobuf(body: Uint8Array, type: protobuf.Type, budget: ElementBudget): void {
  new WireScanner(body, budget).message(planOf(type), body.length, 0);
}
