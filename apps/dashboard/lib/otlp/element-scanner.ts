import { ElementBudget, type ElementLimits } from './element-budget';
import type { Encoding, Signal } from './model';
import { JsonScanner } from './scan-json';
import { wireScanner } from './scan-protobuf';
import { ExportMetricsServiceRequest, ExportTraceServiceRequest } from './schema';

/**
 * Counts the elements of a request body against an `ElementBudget` while the body arrives (as it is
 * decompressed): `feed` with the bytes so far (the same buffer or a larger copy of it, `n` bytes valid), then
 * `finish` with all of them. Throws `OtlpLimitError` at the first element beyond the budget, `OtlpDecodeError`
 * when the encoding is broken in a way the scanner must see (protobuf wire format).
 */
export interface ElementScanner {
  feed(buf: Uint8Array, n: number): void;
  finish(buf: Uint8Array, n: number): void;
}

/** A body whose elements were counted within the limits (decoding it counts nothing again). */
export interface CountedBody {
  readonly counted: Uint8Array;
}

/** The scanner of one request body: JSON or the protobuf message of `signal`. */
export function elementScanner(
  encoding: Encoding,
  signal: Signal,
  limits: ElementLimits | undefined,
): ElementScanner {
  const budget = new ElementBudget(limits);
  if (encoding === 'json') return new JsonScanner(budget);
  return wireScanner(signal === 'traces' ? ExportTraceServiceRequest : ExportMetricsServiceRequest, budget);
}
