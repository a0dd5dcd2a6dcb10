import { SourceUnavailableError, StoreBusyError } from '../source-unavailable';
import { type DecodeLimits, decodeMetrics, decodeTraces } from './decode';
import { type ContentEncoding, decompressCounted } from './decompress-counted';
import { OtlpLimitError } from './element-budget';
import { type CountedBody, elementScanner } from './element-scanner';
import {
  type Encoding,
  type MetricsRequest,
  OtlpDecodeError,
  type Signal,
  type TracesRequest,
} from './model';
import { ExportMetricsServiceResponse, ExportTraceServiceResponse, RpcStatus } from './schema';

/** What an ingest sink reports: how many points/spans it could not use, and why. */
export interface IngestResult {
  readonly rejected: number;
  readonly message?: string;
}

export { StoreBusyError };

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
  /** Who sent it (the remote address): its share of the body budget is capped (`maxBufferedPerClient`). */
  readonly client?: string;
  readonly body: AsyncIterable<Uint8Array>;
}

export interface OtlpHttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  /** The request body was not read to its end: close the connection after answering. */
  readonly close?: boolean;
}

export interface OtlpReceiverOptions {
  readonly sink: OtlpSink;
  /** Cap on the body, compressed and decompressed (413 beyond). */
  readonly maxBodyBytes: number;
  /** Requests decoded and written at once (after their body arrived); beyond, 429 + Retry-After. */
  readonly maxConcurrent: number;
  /** Body bytes held by all requests still being read; beyond, 429 + Retry-After (default 64 MiB). */
  readonly maxBufferedBytes?: number;
  /**
   * Body bytes held by the requests of one client (remote address) still being read; beyond, 429 + Retry-After
   * for that client only (default the larger of `maxBodyBytes` and a quarter of `maxBufferedBytes`).
   */
  readonly maxBufferedPerClient?: number;
  /** The body must arrive within this time (408 after; default 30 s). */
  readonly bodyTimeoutMs?: number;
  /**
   * A body still arriving must bring at least this many bytes per second, measured over each `bodyRateWindowMs`
   * (408 and close after a slower window; default 8 KiB/s, 0 = no minimum).
   */
  readonly minBodyBytesPerSecond?: number;
  /** The window of `minBodyBytesPerSecond` (default 5 s). */
  readonly bodyRateWindowMs?: number;
  /** Decode limits (attribute value length, decoded elements per request). */
  readonly decode?: DecodeLimits;
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
const ENCODINGS: readonly ContentEncoding[] = ['', 'identity', 'gzip', 'x-gzip', 'deflate'];
const CONTENT_TYPE: Record<Encoding, string> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

/** How reading a body ended: plain data, the caller answers. */
type BodyRead =
  | { readonly ok: true; readonly body: Buffer }
  | {
      readonly ok: false;
      readonly why: 'too_large' | 'timeout' | 'too_slow' | 'over_budget' | 'over_client_budget' | 'aborted';
    };

/** How fast a body must keep arriving: at least `bytesPerSecond`, over each window of `windowMs`. */
interface MinRate {
  readonly bytesPerSecond: number;
  readonly windowMs: number;
}

/** A chunk's place in the byte budget: taken, or refused by the whole budget or by the client's share. */
type Take = 'ok' | 'over_budget' | 'over_client_budget';

/**
 * Reads a body of at most `max` bytes within `timeoutMs`, at `minRate` or faster, taking each chunk from a byte
 * budget shared by every request being read (`take` says whether the chunk fits, in all and in the client's
 * share). The bytes stay taken until the caller gives them back. A stalled or too slow body is abandoned (the
 * caller closes the connection).
 */
async function readBody(
  body: AsyncIterable<Uint8Array>,
  max: number,
  timeoutMs: number,
  minRate: MinRate | undefined,
  take: (n: number) => Take,
  taken: { bytes: number },
): Promise<BodyRead> {
  const it = body[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let timer: NodeJS.Timeout | undefined;
  let rateTimer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout' | 'too_slow'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    if (minRate) {
      // Each window must bring its share of bytes; a stalled body no longer holds its budget until the deadline.
      const perWindow = (minRate.bytesPerSecond * minRate.windowMs) / 1000;
      let before = 0;
      let tick = Date.now();
      rateTimer = setInterval(() => {
        const now = Date.now();
        // A late tick means this process was busy (its reads waited too): that window is not the client's fault.
        const late = now - tick > minRate.windowMs * 1.5;
        if (!late && taken.bytes - before < perWindow) resolve('too_slow');
        before = taken.bytes;
        tick = now;
      }, minRate.windowMs);
    }
  });
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array> | 'timeout' | 'too_slow';
      try {
        next = await Promise.race([it.next(), expired]);
      } catch {
        return { ok: false, why: 'aborted' }; // the client went away mid-body
      }
      // The pending read is left to the connection's close (the caller answers 408 and closes it).
      if (next === 'timeout' || next === 'too_slow') return { ok: false, why: next };
      if (next.done) break;
      const chunk = next.value;
      if (taken.bytes + chunk.byteLength > max) return { ok: false, why: 'too_large' };
      const fits = take(chunk.byteLength);
      if (fits !== 'ok') return { ok: false, why: fits };
      taken.bytes += chunk.byteLength;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    }
    return { ok: true, body: Buffer.concat(chunks, taken.bytes) };
  } finally {
    clearTimeout(timer);
    clearInterval(rateTimer);
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

/** The receiver's limits, with their defaults. */
function receiverLimits(options: OtlpReceiverOptions) {
  const maxBuffered = options.maxBufferedBytes ?? 64 * 1024 * 1024;
  const minBodyRate = options.minBodyBytesPerSecond ?? 8 * 1024;
  const minRate: MinRate | undefined =
    minBodyRate > 0
      ? { bytesPerSecond: minBodyRate, windowMs: options.bodyRateWindowMs ?? 5_000 }
      : undefined;
  return {
    maxBuffered,
    maxPerClient: options.maxBufferedPerClient ?? Math.max(options.maxBodyBytes, Math.floor(maxBuffered / 4)),
    bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
    minRate,
    retryAfter: String(options.retryAfterSeconds ?? 1),
  };
}

type Limits = ReturnType<typeof receiverLimits>;

/** Body bytes held by all requests being read, and per client (an entry per client while it holds any). */
function bodyBudget(limits: Limits) {
  let buffered = 0;
  const byClient = new Map<string, number>();
  return {
    take(client: string, n: number): Take {
      const mine = byClient.get(client) ?? 0;
      if (mine + n > limits.maxPerClient) return 'over_client_budget';
      if (buffered + n > limits.maxBuffered) return 'over_budget';
      buffered += n;
      byClient.set(client, mine + n);
      return 'ok';
    },
    giveBack(client: string, n: number) {
      if (n === 0) return;
      buffered -= n;
      const left = (byClient.get(client) ?? n) - n;
      if (left <= 0) byClient.delete(client);
      else byClient.set(client, left);
    },
  };
}

type Fail = (
  status: number,
  code: number,
  message: string,
  extra?: Record<string, string>,
) => OtlpHttpResponse;

/** Responses in the request's encoding: `reply`, `fail` (a google.rpc.Status) and `refuse` (the same, unread). */
function responder(encoding: Encoding) {
  const reply = (
    status: number,
    body: Uint8Array,
    extra: Record<string, string> = {},
    close = false,
  ): OtlpHttpResponse => ({
    status,
    headers: { 'content-type': CONTENT_TYPE[encoding], ...extra },
    body,
    close,
  });
  const fail: Fail = (status, code, message, extra = {}) =>
    reply(status, statusBody(encoding, code, message), extra);
  // Answered before the body was read: the connection cannot be reused.
  const refuse: Fail = (status, code, message, extra = {}) =>
    reply(status, statusBody(encoding, code, message), extra, true);
  return { reply, fail, refuse };
}

/** The refusal of a request by its headers alone (method, token, media type, encoding, length), if any. */
function headerRefusal(
  req: OtlpHttpRequest,
  options: OtlpReceiverOptions,
  mediaType: string,
  refuse: Fail,
): OtlpHttpResponse | undefined {
  if (req.method !== 'POST') return refuse(405, INVALID_ARGUMENT, 'use POST', { allow: 'POST' });
  if (options.token !== undefined && options.token !== '') {
    const given = /^Bearer\s+(.+)$/i.exec(req.authorization ?? '')?.[1]?.trim();
    const ok = options.checkToken ? options.checkToken(given) : given === options.token;
    if (!ok)
      return refuse(401, UNAUTHENTICATED, 'missing or wrong bearer token', {
        'www-authenticate': 'Bearer',
      });
  }
  if (!MEDIA[mediaType]) {
    return refuse(415, INVALID_ARGUMENT, 'content-type must be application/json or application/x-protobuf');
  }
  const contentEncoding = (req.contentEncoding ?? '').trim().toLowerCase();
  if (!ENCODINGS.includes(contentEncoding as ContentEncoding)) {
    return refuse(415, INVALID_ARGUMENT, `unsupported content-encoding '${contentEncoding}'`);
  }
  if (req.contentLength !== undefined && req.contentLength > options.maxBodyBytes) {
    return refuse(413, INVALID_ARGUMENT, `body larger than ${options.maxBodyBytes} bytes`);
  }
  return undefined;
}

/** The answer to a body that could not be read whole. */
function readRefusal(
  why: Extract<BodyRead, { ok: false }>['why'],
  options: OtlpReceiverOptions,
  limits: Limits,
  refuse: Fail,
): OtlpHttpResponse {
  const { minRate, retryAfter } = limits;
  if (why === 'too_large')
    return refuse(413, INVALID_ARGUMENT, `body larger than ${options.maxBodyBytes} bytes`);
  if (why === 'timeout')
    return refuse(408, INVALID_ARGUMENT, `body not received within ${limits.bodyTimeoutMs} ms`);
  if (why === 'too_slow')
    return refuse(
      408,
      INVALID_ARGUMENT,
      `body arriving slower than ${minRate?.bytesPerSecond} bytes/s (over ${minRate?.windowMs} ms)`,
    );
  if (why === 'aborted') return refuse(400, INVALID_ARGUMENT, 'the body was cut off');
  if (why === 'over_client_budget')
    return refuse(
      429,
      RESOURCE_EXHAUSTED,
      `too much export data in flight from this client (more than ${limits.maxPerClient} bytes), retry later`,
      { 'retry-after': retryAfter },
    );
  return refuse(429, RESOURCE_EXHAUSTED, 'too much export data in flight, retry later', {
    'retry-after': retryAfter,
  });
}

/**
 * The OTLP/HTTP receiver (`POST /v1/traces`, `POST /v1/metrics`) per the OTLP specification: JSON and protobuf,
 * gzip/deflate, a cap on the decompressed size, 200 (partial success when points were rejected), 400, 401, 413,
 * 415, 429/503 with Retry-After; never 500 for "try later".
 */
export function createOtlpReceiver(options: OtlpReceiverOptions) {
  let inFlight = 0;
  const limits = receiverLimits(options);
  const budget = bodyBudget(limits);

  return async function receive(signal: Signal, req: OtlpHttpRequest): Promise<OtlpHttpResponse> {
    const mediaType = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const encoding: Encoding = MEDIA[mediaType] ?? 'json';
    const r = responder(encoding);
    const refused = headerRefusal(req, options, mediaType, r.refuse);
    if (refused) return refused;
    // 1. The body, under a byte budget and a deadline; no decode slot is held while a client is slow.
    const taken = { bytes: 0 };
    const client = req.client ?? '';
    try {
      const read = await readBody(
        req.body,
        options.maxBodyBytes,
        limits.bodyTimeoutMs,
        limits.minRate,
        (n) => budget.take(client, n),
        taken,
      );
      if (!read.ok) return readRefusal(read.why, options, limits, r.refuse);
      // 2. A slot, only to decompress, decode and write.
      if (inFlight >= options.maxConcurrent) {
        return r.fail(429, RESOURCE_EXHAUSTED, 'too many concurrent exports, retry later', {
          'retry-after': limits.retryAfter,
        });
      }
      inFlight++;
      try {
        const contentEncoding = (req.contentEncoding ?? '').trim().toLowerCase() as ContentEncoding;
        return await ingest(options, limits, { signal, raw: read.body, contentEncoding, encoding }, r);
      } finally {
        inFlight--;
      }
    } finally {
      budget.giveBack(client, taken.bytes);
    }
  };
}

interface ReadRequest {
  readonly signal: Signal;
  readonly raw: Buffer;
  readonly contentEncoding: ContentEncoding;
  readonly encoding: Encoding;
}

/** Decompresses, decodes and writes one request; 200 (with partial success), 400, 413 or 503. */
async function ingest(
  options: OtlpReceiverOptions,
  limits: Limits,
  req: ReadRequest,
  r: ReturnType<typeof responder>,
): Promise<OtlpHttpResponse> {
  try {
    // Decompressed and counted at once: the first element beyond the budget stops the decompression (413).
    const scanner = elementScanner(req.encoding, req.signal, options.decode?.elements);
    const body = await decompressCounted(req.raw, req.contentEncoding, scanner, options.maxBodyBytes);
    const { rejected, reasons } = decodeAndStore(options, req.signal, body, req.encoding);
    return r.reply(
      200,
      successBody(req.encoding, req.signal, rejected, rejected > 0 ? reasons.join('; ') : ''),
    );
  } catch (error) {
    return ingestFailure(error, options, limits, r.fail);
  }
}

/** Decodes a body and hands it to the sink: what was rejected by either, and why. */
function decodeAndStore(options: OtlpReceiverOptions, signal: Signal, body: CountedBody, encoding: Encoding) {
  let result: IngestResult;
  let rejected: number;
  let reasons: string[];
  if (signal === 'metrics') {
    const decoded = decodeMetrics(body, encoding, options.decode);
    result = options.sink.metrics(decoded);
    rejected = decoded.rejected + result.rejected;
    reasons = [...decoded.rejectedReasons];
  } else {
    const decoded = decodeTraces(body, encoding, options.decode);
    result = options.sink.traces(decoded);
    rejected = decoded.rejected + result.rejected;
    reasons = [...decoded.rejectedReasons];
  }
  if (result.message) reasons.push(result.message);
  return { rejected, reasons };
}

/** A failed ingest's answer: 400 (bad data), 413 (over a limit), 503 + Retry-After (try later), else 500. */
function ingestFailure(error: unknown, options: OtlpReceiverOptions, limits: Limits, fail: Fail) {
  if (error instanceof OtlpDecodeError) return fail(400, INVALID_ARGUMENT, error.message);
  if (error instanceof OtlpLimitError) return fail(413, INVALID_ARGUMENT, error.message);
  if (error instanceof SourceUnavailableError) {
    // A storage fault names its own wait (a full disk is not freed in a second).
    const wait = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    return fail(503, UNAVAILABLE, `${error.message}, retry later`, {
      'retry-after': typeof wait === 'number' ? String(wait) : limits.retryAfter,
    });
  }
  options.onError?.(error);
  return fail(500, INTERNAL, 'internal error');
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
