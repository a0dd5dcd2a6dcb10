import { SourceUnavailableError } from '../source-unavailable';
/*
 * A tiny client for the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`), as served by Prometheus,
 * Mimir (under its `/prometheus` prefix), Thanos Query and VictoriaMetrics. Every failure becomes a
 * `PrometheusError` whose message says what went wrong and names PROMETHEUS_URL (with any credentials masked).
 */

export interface PrometheusClientOptions {
  /** Base URL, path prefix included (`http://prometheus:9090`, `https://mimir.example.com/prometheus`). */
  readonly url: string;
  /** `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  /** Basic auth (both or neither). */
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** `X-Scope-OrgID` (Mimir, Cortex, Thanos Receive tenants). */
  readonly orgId?: string | undefined;
  /** Per request, in ms. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

export interface InstantSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RangeSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** [epoch ms, value], ascending. */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

/** What the PromQL source needs from a Prometheus-compatible API (the client, or a fake in tests). */
export interface PrometheusApi {
  query(promql: string, timeMs: number): Promise<InstantSample[]>;
  queryRange(promql: string, startMs: number, endMs: number, stepMs: number): Promise<RangeSeries[]>;
  labelValues(label: string, matchers: readonly string[], startMs: number, endMs: number): Promise<string[]>;
}

export type PrometheusErrorKind = 'unreachable' | 'timeout' | 'http' | 'api' | 'invalid_response';

/** A `SourceUnavailableError` (the backend-neutral one the edges map), with PromQL's details. */
export class PrometheusError extends SourceUnavailableError {
  override readonly name = 'PrometheusError';
  constructor(
    readonly kind: PrometheusErrorKind,
    message: string,
    /** Prometheus's `errorType` (`bad_data`, `timeout`, `execution`...) or the HTTP status. */
    readonly detail?: string,
  ) {
    super(message, { status: kind === 'timeout' ? 504 : 502, source: 'prometheus' });
  }
}

/** The URL without credentials, for messages. */
export function maskPrometheusUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/** Prometheus encodes sample values as strings, with `NaN`, `+Inf`, `-Inf`. */
export function parseSampleValue(v: unknown): number {
  if (v === '+Inf' || v === 'Inf') return Number.POSITIVE_INFINITY;
  if (v === '-Inf') return Number.NEGATIVE_INFINITY;
  return typeof v === 'string' || typeof v === 'number' ? Number(v) : Number.NaN;
}

/** Epoch ms → the API's time parameter (seconds with millisecond decimals). */
export const promTime = (ms: number): string => (ms / 1000).toFixed(3);

const MAX_ERROR_TEXT = 300;

type ApiData = { resultType?: unknown; result?: unknown } | unknown[];

interface ApiBody {
  status?: unknown;
  errorType?: unknown;
  error?: unknown;
  data?: ApiData;
}

export class PrometheusClient implements PrometheusApi {
  private readonly base: string;
  private readonly where: string;
  private readonly headers: Record<string, string>;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: PrometheusClientOptions) {
    const u = new URL(options.url);
    const user = decodeURIComponent(u.username);
    const password = decodeURIComponent(u.password);
    u.username = '';
    u.password = '';
    this.base = u.toString().replace(/\/+$/, '');
    this.where = `Prometheus at PROMETHEUS_URL=${maskPrometheusUrl(options.url)}`;
    this.headers = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if (options.token !== undefined) this.headers.authorization = `Bearer ${options.token}`;
    else {
      const basicUser = options.user ?? (user || undefined);
      const basicPassword = options.password ?? password;
      if (basicUser !== undefined) {
        this.headers.authorization = `Basic ${Buffer.from(`${basicUser}:${basicPassword}`).toString('base64')}`;
      }
    }
    if (options.orgId !== undefined) this.headers['x-scope-orgid'] = options.orgId;
    this.doFetch = options.fetch ?? fetch;
  }

  /** An instant query evaluated at `timeMs`. */
  async query(promql: string, timeMs: number): Promise<InstantSample[]> {
    const data = await this.call('/api/v1/query', { query: promql, time: promTime(timeMs) });
    if (Array.isArray(data)) throw this.invalid('expected a query result');
    if (data.resultType !== 'vector' || !Array.isArray(data.result)) {
      if (data.resultType === 'scalar' && Array.isArray(data.result)) {
        return [{ labels: {}, value: parseSampleValue((data.result as unknown[])[1]) }];
      }
      throw this.invalid(`expected a vector result, got '${String(data.resultType)}'`);
    }
    return (data.result as Array<{ metric?: Record<string, string>; value?: unknown[] }>).map((r) => ({
      labels: r.metric ?? {},
      value: parseSampleValue(r.value?.[1]),
    }));
  }

  /** A range query: points at start, start + step, ... <= end (all epoch ms). */
  async queryRange(promql: string, startMs: number, endMs: number, stepMs: number): Promise<RangeSeries[]> {
    const data = await this.call('/api/v1/query_range', {
      query: promql,
      start: promTime(startMs),
      end: promTime(endMs),
      step: (stepMs / 1000).toFixed(3),
    });
    if (Array.isArray(data)) throw this.invalid('expected a query result');
    if (data.resultType !== 'matrix' || !Array.isArray(data.result)) {
      throw this.invalid(`expected a matrix result, got '${String(data.resultType)}'`);
    }
    return (data.result as Array<{ metric?: Record<string, string>; values?: unknown[][] }>).map((r) => ({
      labels: r.metric ?? {},
      points: (r.values ?? []).map((v) => [Math.round(Number(v[0]) * 1000), parseSampleValue(v[1])] as const),
    }));
  }

  /** The values of a label on the series matching any of `matchers` in [start, end] (index only, cheap). */
  async labelValues(
    label: string,
    matchers: readonly string[],
    startMs: number,
    endMs: number,
  ): Promise<string[]> {
    const params = new URLSearchParams({ start: promTime(startMs), end: promTime(endMs) });
    for (const m of matchers) params.append('match[]', m);
    // GET: Prometheus 2.x takes no POST on this endpoint.
    const data = await this.call(`/api/v1/label/${encodeURIComponent(label)}/values`, params, 'GET');
    if (!Array.isArray(data)) throw this.invalid('expected a list of label values');
    return (data as unknown[]).filter((v): v is string => typeof v === 'string');
  }

  private invalid(what: string) {
    return new PrometheusError('invalid_response', `${this.where} answered an unexpected body: ${what}`);
  }

  private async call(
    path: string,
    params: Record<string, string> | URLSearchParams,
    method: 'GET' | 'POST' = 'POST',
  ): Promise<ApiData> {
    const form = (params instanceof URLSearchParams ? params : new URLSearchParams(params)).toString();
    const url = method === 'GET' ? `${this.base}${path}?${form}` : `${this.base}${path}`;
    let res: Response;
    try {
      res = await this.doFetch(url, {
        method,
        headers: this.headers,
        body: method === 'GET' ? undefined : form,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'follow',
      });
    } catch (error) {
      throw this.transportError(error);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw this.transportError(error);
    }
    let body: ApiBody | undefined;
    try {
      body = JSON.parse(text) as ApiBody;
    } catch {
      body = undefined;
    }
    if (body && body.status === 'error') {
      const type = typeof body.errorType === 'string' ? body.errorType : 'error';
      const message = typeof body.error === 'string' ? body.error : 'no message';
      throw new PrometheusError(
        'api',
        `${this.where} refused the query (HTTP ${res.status}, ${type}): ${message.slice(0, MAX_ERROR_TEXT)}`,
        type,
      );
    }
    if (!res.ok) {
      const hint =
        res.status === 401 || res.status === 403
          ? ': check PROMETHEUS_TOKEN or PROMETHEUS_USER/PROMETHEUS_PASSWORD'
          : res.status === 404
            ? `: no ${path} there (Mimir and Cortex serve the API under a prefix: PROMETHEUS_URL=https://<host>/prometheus)`
            : '';
      const snippet = text.trim().slice(0, MAX_ERROR_TEXT);
      throw new PrometheusError(
        'http',
        `${this.where} answered HTTP ${res.status} to ${path}${hint}${snippet ? ` (${snippet})` : ''}`,
        String(res.status),
      );
    }
    if (body?.status !== 'success' || typeof body.data !== 'object' || body.data === null) {
      const type = res.headers.get('content-type') ?? 'no content type';
      throw this.invalid(
        `not a Prometheus API response (${type}): ${text.trim().slice(0, 120) || 'empty body'}`,
      );
    }
    return body.data;
  }

  private transportError(error: unknown): PrometheusError {
    const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
      return new PrometheusError(
        'timeout',
        `${this.where} did not answer within ${this.options.timeoutMs} ms (PROMETHEUS_TIMEOUT_MS)`,
      );
    }
    const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
    return new PrometheusError('unreachable', `${this.where} cannot be reached: ${cause}`, cause);
  }
}
