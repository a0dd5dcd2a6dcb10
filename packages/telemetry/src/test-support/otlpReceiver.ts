import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface OtlpRequest {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** What the tests look at in OTLP payloads, the same for JSON and protobuf. */
export interface OtlpSummary {
  readonly metrics: Array<{ name: string; unit: string; kind: 'sum' | 'gauge' | 'histogram' | 'other' }>;
  readonly spans: Array<{ name: string; kind: number; events: string[]; hasParent: boolean }>;
  /** Resource attributes (string values) of every resource seen. */
  readonly resources: Array<Record<string, string>>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: OtlpRequest[];
  summary(): OtlpSummary;
  close(): Promise<void>;
}

/** A minimal OTLP/HTTP receiver on 127.0.0.1 (ephemeral port): accepts JSON and protobuf, gzip or not. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType, body });
      if (contentType.includes('json')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    summary: () => summarize(requests),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function summarize(requests: readonly OtlpRequest[]): OtlpSummary {
  const summary: OtlpSummary = { metrics: [], spans: [], resources: [] };
  for (const request of requests) {
    const isMetrics = request.path.endsWith('/v1/metrics');
    if (request.contentType.includes('json'))
      fromJson(JSON.parse(request.body.toString('utf8')), isMetrics, summary);
    else fromProtobuf(request.body, isMetrics, summary);
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON (OTLP/JSON: lowerCamelCase keys, enums as integers)
// ---------------------------------------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: { stringValue?: string };
}
interface JsonResource {
  attributes?: JsonKeyValue[];
}

const jsonAttributes = (resource: JsonResource | undefined): Record<string, string> =>
  Object.fromEntries(
    (resource?.attributes ?? [])
      .filter((a) => typeof a.value?.stringValue === 'string')
      .map((a) => [a.key, a.value?.stringValue as string]),
  );

function fromJson(payload: Record<string, unknown>, isMetrics: boolean, summary: OtlpSummary): void {
  if (isMetrics) {
    for (const rm of (payload.resourceMetrics ?? []) as Array<{
      resource?: JsonResource;
      scopeMetrics?: unknown[];
    }>) {
      summary.resources.push(jsonAttributes(rm.resource));
      for (const sm of (rm.scopeMetrics ?? []) as Array<{ metrics?: Array<Record<string, unknown>> }>) {
        for (const m of sm.metrics ?? []) {
          const kind = 'sum' in m ? 'sum' : 'gauge' in m ? 'gauge' : 'histogram' in m ? 'histogram' : 'other';
          summary.metrics.push({ name: String(m.name), unit: String(m.unit ?? ''), kind });
        }
      }
    }
    return;
  }
  for (const rs of (payload.resourceSpans ?? []) as Array<{
    resource?: JsonResource;
    scopeSpans?: unknown[];
  }>) {
    summary.resources.push(jsonAttributes(rs.resource));
    for (const ss of (rs.scopeSpans ?? []) as Array<{ spans?: Array<Record<string, unknown>> }>) {
      for (const s of ss.spans ?? []) {
        summary.spans.push({
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          events: ((s.events ?? []) as Array<{ name: string }>).map((e) => e.name),
          hasParent: typeof s.parentSpanId === 'string' && s.parentSpanId !== '',
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Protobuf: a small wire-format reader, enough to walk the OTLP messages by field number
// (field numbers from opentelemetry-proto: collector/*/v1, metrics/v1, trace/v1, common/v1, resource/v1)
// ---------------------------------------------------------------------------------------------------------------

interface Field {
  readonly field: number;
  readonly bytes?: Buffer;
  readonly varint?: bigint;
}

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length; i++) {
    const byte = buf[i]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  throw new Error('truncated varint');
}

function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buf, at);
      fields.push({ field, varint: value });
      at = after;
    } else if (wire === 1) {
      at += 8;
      fields.push({ field });
    } else if (wire === 2) {
      const [length, after] = readVarint(buf, at);
      const end = after + Number(length);
      fields.push({ field, bytes: buf.subarray(after, end) });
      at = end;
    } else if (wire === 5) {
      at += 4;
      fields.push({ field });
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return fields;
}

const children = (buf: Buffer, field: number): Buffer[] =>
  readFields(buf)
    .filter((f) => f.field === field && f.bytes)
    .map((f) => f.bytes as Buffer);
const text = (buf: Buffer, field: number): string => children(buf, field)[0]?.toString('utf8') ?? '';

/** Resource { repeated KeyValue attributes = 1 }; KeyValue { key = 1; AnyValue value = 2 }; AnyValue { string_value = 1 } */
function protoAttributes(resource: Buffer | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const kv of resource ? children(resource, 1) : []) {
    const value = children(kv, 2)[0];
    const stringValue = value ? children(value, 1)[0] : undefined;
    if (stringValue) result[text(kv, 1)] = stringValue.toString('utf8');
  }
  return result;
}

function fromProtobuf(body: Buffer, isMetrics: boolean, summary: OtlpSummary): void {
  // Export*ServiceRequest { repeated Resource{Metrics,Spans} = 1 } → { resource = 1; repeated scope_* = 2 }
  for (const resourceMessage of children(body, 1)) {
    summary.resources.push(protoAttributes(children(resourceMessage, 1)[0]));
    for (const scope of children(resourceMessage, 2)) {
      if (isMetrics) {
        // ScopeMetrics { metrics = 2 }; Metric { name = 1; unit = 3; gauge = 5; sum = 7; histogram = 9 }
        for (const metric of children(scope, 2)) {
          const present = new Set(readFields(metric).map((f) => f.field));
          const kind = present.has(7)
            ? 'sum'
            : present.has(5)
              ? 'gauge'
              : present.has(9)
                ? 'histogram'
                : 'other';
          summary.metrics.push({ name: text(metric, 1), unit: text(metric, 3), kind });
        }
      } else {
        // ScopeSpans { spans = 2 }; Span { parent_span_id = 4; name = 5; kind = 6; events = 11 }; Event { name = 2 }
        for (const span of children(scope, 2)) {
          const kind = readFields(span).find((f) => f.field === 6)?.varint ?? 0n;
          summary.spans.push({
            name: text(span, 5),
            kind: Number(kind),
            events: children(span, 11).map((event) => text(event, 2)),
            hasParent: (children(span, 4)[0]?.length ?? 0) > 0,
          });
        }
      }
    }
  }
}
