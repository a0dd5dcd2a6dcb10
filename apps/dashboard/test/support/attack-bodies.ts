import { gzipSync } from 'node:zlib';
import { nanos } from './otlp-json';

/*
 * The hostile exports of issue #22, byte for byte: a few kilobytes of gzip that decode to millions of elements,
 * or strings long enough to make per-point work expensive. Shared by the tests and bench/attacks.ts.
 */

export interface AttackBody {
  readonly name: string;
  readonly signal: 'metrics' | 'traces';
  readonly contentType: 'application/json' | 'application/x-protobuf';
  /** gzip-compressed. */
  readonly body: Buffer;
  /** Bytes once decompressed. */
  readonly rawBytes: number;
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited protobuf field. */
export const lenField = (id: number, payload: Buffer): Buffer =>
  Buffer.concat([varint(id * 8 + 2), varint(payload.length), payload]);

/** `n` copies of `unit`. */
const repeat = (unit: Buffer, n: number): Buffer => {
  const out = Buffer.alloc(unit.length * n);
  out.fill(unit);
  return out;
};

/** ExportMetricsServiceRequest > ResourceMetrics > ScopeMetrics > Metric { name, gauge { dataPoints } }. */
function protoGauge(name: string, dataPoints: Buffer): Buffer {
  const metric = Buffer.concat([lenField(1, Buffer.from(name)), lenField(5, dataPoints)]);
  return lenField(1, lenField(2, lenField(2, metric)));
}

const gz = (raw: Buffer) => gzipSync(raw, { level: 9 });

function attack(name: string, signal: AttackBody['signal'], json: boolean, raw: Buffer): AttackBody {
  return {
    name,
    signal,
    contentType: json ? 'application/json' : 'application/x-protobuf',
    body: gz(raw),
    rawBytes: raw.length,
  };
}

/** `points` empty protobuf data points (2 bytes each: 10.4M in 20.8 MB, ~20 KB gzipped). */
export const emptyProtobufPoints = (points: number): AttackBody =>
  attack(
    `${points} empty protobuf points`,
    'metrics',
    false,
    protoGauge('x', repeat(Buffer.from([0x0a, 0x00]), points)),
  );

const jsonGauge = (name: string, points: string) =>
  `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":${JSON.stringify(name)},"gauge":{"dataPoints":[${points}]}}]}]}]}`;

/** `points` empty JSON data points (`{}`, 3 bytes each). */
export const emptyJsonPoints = (points: number): AttackBody =>
  attack(
    `${points} empty JSON points`,
    'metrics',
    true,
    Buffer.from(jsonGauge('x', `${'{},'.repeat(points - 1)}{}`)),
  );

/** One protobuf data point with `n` empty attributes (NumberDataPoint.attributes = field 7, 2 bytes each). */
export const emptyAttributes = (n: number): AttackBody =>
  attack(
    `${n} empty attributes`,
    'metrics',
    false,
    protoGauge('x', lenField(1, repeat(Buffer.from([0x3a, 0x00]), n))),
  );

/** A metric whose name is `nameLength` characters, on `points` data points without a timestamp (JSON). */
export const longNameUntimedPoints = (nameLength: number, points: number): AttackBody =>
  attack(
    `${nameLength}-character name on ${points} untimed points`,
    'metrics',
    true,
    Buffer.from(jsonGauge('n'.repeat(nameLength), `${'{"asDouble":1},'.repeat(points - 1)}{"asDouble":1}`)),
  );

/** A sum point whose asInt is `digits` digits long (JSON). */
export const hugeAsInt = (digits: number, nowMs: number): AttackBody =>
  attack(
    `asInt of ${digits} digits`,
    'metrics',
    true,
    Buffer.from(
      `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"mcp.resilience.calls","sum":{"aggregationTemporality":2,"isMonotonic":true,"dataPoints":[{"timeUnixNano":"${nanos(nowMs)}","asInt":"${'9'.repeat(digits)}"}]}}]}]}]}`,
    ),
  );

const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });

/**
 * One resource with `attrs` attributes of `valueBytes` each, shared by `series` cumulative series of the calls
 * counter (each point its own tool).
 */
export function wideResourceSeries(
  attrs: number,
  valueBytes: number,
  series: number,
  nowMs: number,
): AttackBody {
  const resource = {
    attributes: [
      kv('service.name', 'wide'),
      ...Array.from({ length: attrs }, (_, i) => kv(`attr.${i}`, String(i % 10).repeat(valueBytes))),
    ],
  };
  const dataPoints = Array.from({ length: series }, (_, i) => ({
    startTimeUnixNano: nanos(nowMs - 1000),
    timeUnixNano: nanos(nowMs),
    asInt: '1',
    attributes: [
      kv('mcp.resilience.server', 'wide'),
      kv('mcp.resilience.outcome', 'success'),
      kv('gen_ai.tool.name', `t${i}`),
    ],
  }));
  const body = {
    resourceMetrics: [
      {
        resource,
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'mcp.resilience.calls',
                sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints },
              },
            ],
          },
        ],
      },
    ],
  };
  return attack(
    `${series} series sharing ${attrs} attributes of ${valueBytes} B`,
    'metrics',
    true,
    Buffer.from(JSON.stringify(body)),
  );
}

/**
 * Delta points of the calls counter: the first `bad` carry an attribute whose value is a kvlist with the keys
 * `toString`, `valueOf` and `__proto__`; `good` more are plain. Every point counts one call.
 */
export function prototypeKeys(bad: number, good: number, nowMs: number): AttackBody {
  const hostile = {
    kvlistValue: {
      values: [
        { key: 'toString', value: { stringValue: 'x' } },
        { key: 'valueOf', value: { intValue: '1' } },
        {
          key: '__proto__',
          value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } },
        },
      ],
    },
  };
  const point = (i: number, value: unknown) => ({
    timeUnixNano: nanos(nowMs),
    asInt: '1',
    attributes: [
      { key: 'mcp.resilience.server', value },
      kv('mcp.resilience.outcome', 'success'),
      kv('gen_ai.tool.name', `tool-${i}`),
    ],
  });
  const dataPoints = [
    ...Array.from({ length: bad }, (_, i) => point(i, hostile)),
    ...Array.from({ length: good }, (_, i) => point(bad + i, { stringValue: 'weather' })),
  ];
  const body = {
    resourceMetrics: [
      {
        resource: { attributes: [kv('service.name', 'proto')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'mcp.resilience.calls',
                sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints },
              },
            ],
          },
        ],
      },
    ],
  };
  return attack(
    `kvlist keys toString/valueOf/__proto__ on ${bad} of ${bad + good} points`,
    'metrics',
    true,
    Buffer.from(JSON.stringify(body)),
  );
}
