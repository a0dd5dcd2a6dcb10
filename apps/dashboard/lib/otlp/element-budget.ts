/*
 * Bounds on what one OTLP request may decode to, counted while the body is scanned (before any object is built):
 * a few kilobytes of gzip can hold millions of empty elements, so the byte cap alone does not bound the work.
 */

/** What is counted. */
export const Element = {
  Resources: 0,
  Scopes: 1,
  Metrics: 2,
  Points: 3,
  Spans: 4,
  Events: 5,
  Attributes: 6,
  Members: 7,
  Buckets: 8,
  /** Every JSON value (unknown fields included). */
  Values: 9,
} as const;
export type Element = (typeof Element)[keyof typeof Element];

/** Caps per request; every field optional (see `ELEMENT_DEFAULTS`). */
export interface ElementLimits {
  /** Resource blocks (`resourceMetrics`, `resourceSpans`). */
  readonly resources?: number;
  /** Scope blocks (`scopeMetrics`, `scopeSpans`). */
  readonly scopes?: number;
  readonly metrics?: number;
  /** Data points of every metric type (`OTLP_MAX_ITEMS_PER_REQUEST`). */
  readonly points?: number;
  /** Spans (`OTLP_MAX_ITEMS_PER_REQUEST`). */
  readonly spans?: number;
  /** Span events. */
  readonly events?: number;
  /** Key-values: resource, scope, point, span and event attributes, kvlist members (`OTLP_MAX_ATTRIBUTES_PER_REQUEST`). */
  readonly attributes?: number;
  /** Members of array and kvlist values. */
  readonly members?: number;
  /** Histogram explicit bounds and bucket counts. */
  readonly buckets?: number;
  /** JSON values of any kind, unknown fields included. */
  readonly values?: number;
  /** The longest string (name, key, value, bytes) in bytes (`OTLP_MAX_STRING_BYTES`). */
  readonly stringBytes?: number;
  /** The longest JSON number literal, in characters. */
  readonly numberChars?: number;
  /** Nesting of objects, arrays and messages. */
  readonly depth?: number;
}

export const ELEMENT_DEFAULTS = Object.freeze({
  resources: 1_000,
  scopes: 10_000,
  metrics: 20_000,
  points: 50_000,
  spans: 50_000,
  events: 200_000,
  attributes: 500_000,
  members: 100_000,
  buckets: 1_000_000,
  values: 3_000_000,
  stringBytes: 256 * 1024,
  numberChars: 64,
  depth: 64,
}) satisfies Required<ElementLimits>;

const NAMES: Record<Element, string> = {
  [Element.Resources]: 'resource blocks',
  [Element.Scopes]: 'scope blocks',
  [Element.Metrics]: 'metrics',
  [Element.Points]: 'data points (OTLP_MAX_ITEMS_PER_REQUEST)',
  [Element.Spans]: 'spans (OTLP_MAX_ITEMS_PER_REQUEST)',
  [Element.Events]: 'span events',
  [Element.Attributes]: 'attributes (OTLP_MAX_ATTRIBUTES_PER_REQUEST)',
  [Element.Members]: 'array and kvlist members',
  [Element.Buckets]: 'histogram bounds and bucket counts',
  [Element.Values]: 'JSON values',
};

const FIELDS: Record<Element, keyof typeof ELEMENT_DEFAULTS> = {
  [Element.Resources]: 'resources',
  [Element.Scopes]: 'scopes',
  [Element.Metrics]: 'metrics',
  [Element.Points]: 'points',
  [Element.Spans]: 'spans',
  [Element.Events]: 'events',
  [Element.Attributes]: 'attributes',
  [Element.Members]: 'members',
  [Element.Buckets]: 'buckets',
  [Element.Values]: 'values',
};

/** A request beyond the element limits: answered 413 with this message (nothing of it is kept). */
export class OtlpLimitError extends Error {
  override readonly name = 'OtlpLimitError';
}

const SPLIT = 'split the export into smaller requests';

/** Counts decoded elements against the limits; the first one beyond throws `OtlpLimitError`. */
export class ElementBudget {
  private readonly counts = new Float64Array(10);
  private readonly max = new Float64Array(10);
  readonly stringBytes: number;
  readonly numberChars: number;
  readonly depth: number;

  constructor(limits: ElementLimits = {}) {
    const all = { ...ELEMENT_DEFAULTS, ...definedOnly(limits) };
    for (const [e, field] of Object.entries(FIELDS)) this.max[Number(e)] = all[field];
    this.stringBytes = all.stringBytes;
    this.numberChars = all.numberChars;
    this.depth = all.depth;
  }

  /** One more element of `e` (`n` more for packed scalars). */
  add(e: Element, n = 1): void {
    const c = this.counts[e]! + n;
    this.counts[e] = c;
    if (c > this.max[e]!)
      throw new OtlpLimitError(`more than ${this.max[e]} ${NAMES[e]} in one request: ${SPLIT}`);
  }

  count(e: Element): number {
    return this.counts[e]!;
  }

  string(bytes: number, what: string): void {
    if (bytes > this.stringBytes)
      throw new OtlpLimitError(
        `a string of ${bytes} bytes in ${what} (at most ${this.stringBytes}, OTLP_MAX_STRING_BYTES)`,
      );
  }

  /** A string still arriving is already longer than `stringBytes`. */
  longString(what: string): never {
    throw new OtlpLimitError(
      `a string longer than ${this.stringBytes} bytes in ${what} (OTLP_MAX_STRING_BYTES)`,
    );
  }

  nested(depth: number): void {
    if (depth > this.depth) throw new OtlpLimitError(`nested deeper than ${this.depth} levels`);
  }
}

function definedOnly(limits: ElementLimits): Partial<typeof ELEMENT_DEFAULTS> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(limits)) if (v !== undefined) out[k] = v as number;
  return out;
}
