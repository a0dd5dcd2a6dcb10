import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { decodeMetrics, decodeTraces, type Encoding } from './decode';
import { type MetricsRequest, OtlpDecodeError, type Signal, type TracesRequest } from './model';
import { ExportMetricsServiceResponse, ExportTraceServiceResponse, RpcStatus } from './schema';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** What an ingest sink reports: how many points/spans it could not use, and why. */
export interface IngestResult {
  readonly rejected: number;
  readonly message?: string;
}

/** Thrown by a sink when the store cannot take the data now (locked, overloaded): answered 503 + Retry-After. */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
}

export interface OtlpSink {
  metrics(request: MetricsRequest): IngestResult;
  traces(request: TracesRequest): IngestResult;
}

/** A framework-neutral view of one HTTP request (node:http and fetch `Request` both adapt to it). */
export interface OtlpHttpRequest {
  readonly method: string;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly contentLength: number | undefined;
  readonly authorization: string | undefined;
  readonly body: AsyncIterable<Uint8Array>;
}

export interface OtlpHttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

export interface OtlpReceiverOptions {
  readonly sink: OtlpSink;
  /** Cap on the body, compressed and decompressed (413 beyond). */
  readonly maxBodyBytes: number;
  /** Requests processed at once; beyond, 429 + Retry-After. */
  readonly maxConcurrent: number;
  /** When set, `Authorization: Bearer <token>` is required (401 otherwise). */
  readonly token?: string | undefined;
  /** Compares secrets in constant time. */
  readonly checkToken?: (given: string | undefined) => boolean;
  readonly retryAfterSeconds?: number;
  readonly onError?: (error: unknown) => void;
}

const MEDIA: Record<string, Encoding> = {
  'application/json': 'json',
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
};
const CONTENT_TYPE: Record<Encoding, string> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

class TooLarge extends Error {}

async function readCapped(body: AsyncIterable<Uint8Array>, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > max) throw new TooLarge();
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return Buffer.concat(chunks, size);
}

async function decompress(body: Buffer, encoding: string, max: number): Promise<Buffer> {
  if (encoding === '' || encoding === 'identity') return body;
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip')
      return await gunzipAsync(body, { maxOutputLength: max });
    return await inflateAsync(body, { maxOutputLength: max });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
      throw new TooLarge();
    throw new OtlpDecodeError(`invalid ${encoding} body`);
  }
}

function statusBody(encoding: Encoding, code: number, message: string): Uint8Array {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  return RpcStatus.encode(RpcStatus.create({ code, message })).finish();
}

function successBody(encoding: Encoding, signal: Signal, rejected: number, message: string): Uint8Array {
  if (rejected === 0 && message === '') return encoding === 'json' ? Buffer.from('{}') : new Uint8Array(0);
  if (encoding === 'json') {
    const key = signal === 'traces' ? 'rejectedSpans' : 'rejectedDataPoints';
    return Buffer.from(
      JSON.stringify({ partialSuccess: { [key]: String(rejected), errorMessage: message } }),
    );
  }
  if (signal === 'traces') {
    return ExportTraceServiceResponse.encode(
      ExportTraceServiceResponse.create({
        partialSuccess: { rejectedSpans: rejected, errorMessage: message },
      }),
    ).finish();
  }
  return ExportMetricsServiceResponse.encode(
    ExportMetricsServiceResponse.create({
      partialSuccess: { rejectedDataPoints: rejected, errorMessage: message },
    }),
  ).finish();
}

/** gRPC status codes used in error bodies (google.rpc.Status). */
const INVALID_ARGUMENT = 3;
const UNAUTHENTICATED = 16;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const INTERNAL = 13;
const NOT_FOUND = 5;

/**
 * The OTLP/HTTP receiver (`POST /v1/traces`, `POST /v1/metrics`) per the OTLP specification: JSON and protobuf,
 * gzip/deflate, a cap on the decompressed size, 200 (partial success when points were rejected), 400, 401, 413,
 * 415, 429/503 with Retry-After; never 500 for "try later".
 */
export function createOtlpReceiver(options: OtlpReceiverOptions) {
  let inFlight = 0;
  const retryAfter = String(options.retryAfterSeconds ?? 1);

  return async function receive(signal: Signal, req: OtlpHttpRequest): Promise<OtlpHttpResponse> {
    const mediaType = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const encoding: Encoding = MEDIA[mediaType] ?? 'json';
    const reply = (
      status: number,
      body: Uint8Array,
      extra: Record<string, string> = {},
    ): OtlpHttpResponse => ({
      status,
      headers: { 'content-type': CONTENT_TYPE[encoding], ...extra },
      body,
    });
    const fail = (status: number, code: number, message: string, extra: Record<string, string> = {}) =>
      reply(status, statusBody(encoding, code, message), extra);

    if (req.method !== 'POST') return fail(405, INVALID_ARGUMENT, 'use POST', { allow: 'POST' });
    if (options.token !== undefined && options.token !== '') {
      const given = /^Bearer\s+(.+)$/i.exec(req.authorization ?? '')?.[1]?.trim();
      const ok = options.checkToken ? options.checkToken(given) : given === options.token;
      if (!ok)
        return fail(401, UNAUTHENTICATED, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    }
    if (!MEDIA[mediaType]) {
      return fail(415, INVALID_ARGUMENT, 'content-type must be application/json or application/x-protobuf');
    }
    const contentEncoding = (req.contentEncoding ?? '').trim().toLowerCase();
    if (!['', 'identity', 'gzip', 'x-gzip', 'deflate'].includes(contentEncoding)) {
      return fail(415, INVALID_ARGUMENT, `unsupported content-encoding '${contentEncoding}'`);
    }
    if (req.contentLength !== undefined && req.contentLength > options.maxBodyBytes) {
      return fail(413, INVALID_ARGUMENT, `body larger than ${options.maxBodyBytes} bytes`);
    }
    if (inFlight >= options.maxConcurrent) {
      return fail(429, RESOURCE_EXHAUSTED, 'too many concurrent exports, retry later', {
        'retry-after': retryAfter,
      });
    }
    inFlight++;
    try {
      let body: Buffer;
      try {
        body = await decompress(
          await readCapped(req.body, options.maxBodyBytes),
          contentEncoding,
          options.maxBodyBytes,
        );
      } catch (error) {
        if (error instanceof TooLarge) {
          return fail(
            413,
            INVALID_ARGUMENT,
            `body larger than ${options.maxBodyBytes} bytes (after decompression)`,
          );
        }
        throw error;
      }
      let result: IngestResult;
      let rejected: number;
      let reasons: string[];
      if (signal === 'metrics') {
        const decoded = decodeMetrics(body, encoding);
        result = options.sink.metrics(decoded);
        rejected = decoded.rejected + result.rejected;
        reasons = [...decoded.rejectedReasons];
      } else {
        const decoded = decodeTraces(body, encoding);
        result = options.sink.traces(decoded);
        rejected = decoded.rejected + result.rejected;
        reasons = [...decoded.rejectedReasons];
      }
      if (result.message) reasons.push(result.message);
      return reply(200, successBody(encoding, signal, rejected, rejected > 0 ? reasons.join('; ') : ''));
    } catch (error) {
      if (error instanceof OtlpDecodeError) return fail(400, INVALID_ARGUMENT, error.message);
      if (error instanceof StoreBusyError) {
        return fail(503, UNAVAILABLE, 'store busy, retry later', { 'retry-after': retryAfter });
      }
      options.onError?.(error);
      return fail(500, INTERNAL, 'internal error');
    } finally {
      inFlight--;
    }
  };
}

/**
 * The receiver of a dashboard that does not take OTLP (`DASHBOARD_SOURCE=prometheus`): 404 with a
 * google.rpc.Status saying where the data should go (404 is not retryable, so exporters drop instead of
 * retrying forever).
 */
export function createRefusingOtlpReceiver(message: string) {
  return async function receive(_signal: Signal, req: OtlpHttpRequest): Promise<OtlpHttpResponse> {
    const mediaType = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const encoding: Encoding = MEDIA[mediaType] ?? 'json';
    return {
      status: 404,
      headers: { 'content-type': CONTENT_TYPE[encoding] },
      body: statusBody(encoding, NOT_FOUND, message),
    };
  };
}
