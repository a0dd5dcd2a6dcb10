import { parseCidr } from './alerts/address-policy';
/** Every environment variable the dashboard reads, parsed once; a bad value fails startup naming the variable. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly retentionDays: number;
  readonly ingestToken: string | undefined;
  readonly dashboardToken: string | undefined;
  readonly dashboardUser: string | undefined;
  readonly dashboardPassword: string | undefined;
  readonly maxBodyBytes: number;
  readonly maxConcurrentIngest: number;
  readonly maxStoredCalls: number;
  readonly maxStoredAttempts: number;
  /** `MAX_STORED_TRANSITIONS`: breaker transitions kept (oldest dropped beyond). */
  readonly maxStoredTransitions: number;
  readonly alertEvalIntervalMs: number;
  readonly retentionIntervalMs: number;
  readonly breakerStaleMs: number;
  readonly source: 'embedded' | 'prometheus';
  readonly publicUrl: string | undefined;
  /** Ingest and HTTP bounds (see `loadLimits`). */
  readonly limits: Limits;
  /** Set when `source` is 'prometheus'. */
  readonly prometheus: PrometheusConfig | undefined;
}

/**
 * Everything reachable over the network is bounded: these are the bounds, each from one environment variable
 * (README, "Bounds"). Defaults in `LIMIT_DEFAULTS`.
 */
export interface Limits {
  /** `OTLP_BODY_TIMEOUT_MS`: an OTLP body must arrive within this time of its headers (408 after). */
  readonly bodyTimeoutMs: number;
  /** `OTLP_MAX_BUFFERED_BYTES`: body bytes held by all OTLP requests still being read (429 beyond). */
  readonly maxBufferedBytes: number;
  /**
   * `OTLP_MAX_BUFFERED_PER_CLIENT`: of those, bytes held by the exports of one client address (429 for that
   * client beyond; default the larger of OTLP_MAX_BODY_BYTES and a quarter of OTLP_MAX_BUFFERED_BYTES).
   */
  readonly maxBufferedPerClient: number;
  /** `OTLP_MIN_BODY_BYTES_PER_SEC`: a body still arriving must bring this much per window (408 after; 0 = off). */
  readonly minBodyBytesPerSecond: number;
  /** `OTLP_BODY_RATE_WINDOW_MS`: the window over which `minBodyBytesPerSecond` is measured. */
  readonly bodyRateWindowMs: number;
  /** `HTTP_HEADERS_TIMEOUT_MS`: the request headers must arrive within this time (node:http `headersTimeout`). */
  readonly headersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT_MS`: the whole request must arrive within this time (node:http `requestTimeout`). */
  readonly requestTimeoutMs: number;
  /** `HTTP_KEEP_ALIVE_TIMEOUT_MS`: an idle keep-alive connection is closed after this time. */
  readonly keepAliveTimeoutMs: number;
  /** `OTLP_MAX_FUTURE_SKEW_MS`: points and spans later than now + this are rejected (partial success). */
  readonly maxFutureSkewMs: number;
  /** `OTLP_MAX_ATTRIBUTE_LENGTH`: string attribute values are truncated to this many characters. */
  readonly maxAttributeLength: number;
  /** `MAX_LABEL_VALUES`: distinct values kept per label (service, server, tool...); later ones become `_OTHER`. */
  readonly maxLabelValues: number;
  /** `OTLP_MAX_CUMULATIVE_SERIES`: cumulative series tracked; points of new series beyond are refused. */
  readonly maxCumulativeSeries: number;
  /** `OTLP_MAX_CUMULATIVE_SERIES_BYTES`: bytes of their stored state; points of new series beyond are refused. */
  readonly maxCumulativeSeriesBytes: number;
  /** `OTLP_MAX_ITEMS_PER_REQUEST`: data points, and spans, one export may decode to (413 beyond). */
  readonly maxItemsPerRequest: number;
  /** `OTLP_MAX_ATTRIBUTES_PER_REQUEST`: key-values (attributes, kvlist members) one export may decode to (413 beyond). */
  readonly maxAttributesPerRequest: number;
  /** `OTLP_MAX_STRING_BYTES`: the longest string (name, key, value) an export may carry (413 beyond). */
  readonly maxStringBytes: number;
  /** `MAX_ALERT_INSTANCES`: alert instances kept (resolved ones pruned first; 413 for Alertmanager beyond). */
  readonly maxAlertInstances: number;
  /** `MAX_ALERT_HISTORY`: alert history rows kept (oldest pruned). */
  readonly maxAlertHistory: number;
  /** `ALERT_RESOLVED_KEEP_MS`: a resolved alert instance stays listed this long. */
  readonly resolvedAlertKeepMs: number;
  /** `ALERTMANAGER_STALE_MS`: a firing Alertmanager alert not sent again for this long is taken as resolved. */
  readonly alertmanagerStaleMs: number;
  /** `ALERT_TARGET_ALLOWED_NETWORKS`: CIDRs alert targets may reach although private/loopback (default none). */
  readonly allowedTargetNetworks: readonly string[];
  /** `ALERT_TARGET_TIMEOUT_MS`: one webhook attempt (connect, send, answer) must finish within this time. */
  readonly targetTimeoutMs: number;
  /** `ALLOWED_HOSTS`: Host names accepted besides IP literals, single-label names and PUBLIC_URL's host. */
  readonly allowedHosts: readonly string[];
  /** `SSE_MAX_CONNECTIONS`: live (SSE) connections at once (503 beyond). */
  readonly maxSseConnections: number;
  /** `SSE_MAX_PER_CLIENT`: live connections per client address (503 beyond). */
  readonly maxSsePerClient: number;
  /** `SSE_MAX_LIFETIME_MS`: a live connection is ended after this time (the browser reconnects). */
  readonly maxSseLifetimeMs: number;
}

export const LIMIT_DEFAULTS: Limits = Object.freeze({
  bodyTimeoutMs: 30_000,
  maxBufferedBytes: 64 * 1024 * 1024,
  maxBufferedPerClient: 20 * 1024 * 1024,
  minBodyBytesPerSecond: 8 * 1024,
  bodyRateWindowMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  maxFutureSkewMs: 5 * 60_000,
  maxAttributeLength: 1024,
  maxLabelValues: 1000,
  maxCumulativeSeries: 100_000,
  maxCumulativeSeriesBytes: 64 * 1024 * 1024,
  maxItemsPerRequest: 50_000,
  maxAttributesPerRequest: 500_000,
  maxStringBytes: 256 * 1024,
  maxAlertInstances: 1000,
  maxAlertHistory: 10_000,
  resolvedAlertKeepMs: 86_400_000,
  alertmanagerStaleMs: 12 * 3_600_000,
  allowedTargetNetworks: [],
  targetTimeoutMs: 5_000,
  allowedHosts: [],
  maxSseConnections: 100,
  maxSsePerClient: 10,
  maxSseLifetimeMs: 3_600_000,
});

/** `DASHBOARD_SOURCE=prometheus`: where the PromQL API is and how to query it. */
export interface PrometheusConfig {
  /** Base URL of the Prometheus HTTP API, path prefix included (Mimir: `https://<host>/prometheus`). */
  readonly url: string;
  readonly token: string | undefined;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** `X-Scope-OrgID` for multi-tenant Mimir/Cortex. */
  readonly orgId: string | undefined;
  readonly timeoutMs: number;
  /** The scrape interval of the resilience metrics: the finest step of the queries. */
  readonly scrapeIntervalMs: number;
  /** How often breaker states are polled for the live view (while someone watches). */
  readonly pollIntervalMs: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `expected an integer between ${min} and ${max}, got '${raw}'`);
  }
  return n;
}

const optional = (env: Env, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
};

export function loadConfig(env: Env = process.env): Config {
  const source = env.DASHBOARD_SOURCE ?? 'embedded';
  if (source !== 'embedded' && source !== 'prometheus') {
    throw new ConfigError('DASHBOARD_SOURCE', `expected 'embedded' or 'prometheus', got '${source}'`);
  }
  const user = optional(env, 'DASHBOARD_USER');
  const password = optional(env, 'DASHBOARD_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'DASHBOARD_USER' : 'DASHBOARD_PASSWORD',
      'set both DASHBOARD_USER and DASHBOARD_PASSWORD, or neither',
    );
  }
  const maxBodyBytes = int(env, 'OTLP_MAX_BODY_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  return {
    prometheus: source === 'prometheus' ? loadPrometheusConfig(env) : undefined,
    port: int(env, 'PORT', 3000, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    dataDir: optional(env, 'DATA_DIR') ?? './data',
    retentionDays: int(env, 'RETENTION_DAYS', 7, 1, 3650),
    ingestToken: optional(env, 'INGEST_TOKEN'),
    dashboardToken: optional(env, 'DASHBOARD_TOKEN'),
    dashboardUser: user,
    dashboardPassword: password,
    maxBodyBytes,
    maxConcurrentIngest: int(env, 'OTLP_MAX_CONCURRENT', 8, 1, 1024),
    maxStoredCalls: int(env, 'MAX_STORED_CALLS', 50_000, 100, 100_000_000),
    maxStoredAttempts: int(env, 'MAX_STORED_ATTEMPTS', 200_000, 100, 100_000_000),
    maxStoredTransitions: int(env, 'MAX_STORED_TRANSITIONS', 100_000, 100, 100_000_000),
    alertEvalIntervalMs: int(env, 'ALERT_EVAL_INTERVAL_MS', 15_000, 100, 3_600_000),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 60_000, 1_000, 86_400_000),
    breakerStaleMs: int(env, 'BREAKER_STALE_MS', 10 * 60_000, 1_000, 7 * 86_400_000),
    source,
    publicUrl: publicUrl(env),
    limits: loadLimits(env, maxBodyBytes),
  };
}

function publicUrl(env: Env): string | undefined {
  const raw = optional(env, 'PUBLIC_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', `not a URL: '${raw.slice(0, 80)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', `expected an http:// or https:// URL, got '${url.protocol}'`);
  }
  return raw.replace(/\/+$/, '');
}

const list = (env: Env, name: string): string[] =>
  (optional(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function loadLimits(env: Env, maxBodyBytes: number): Limits {
  const d = LIMIT_DEFAULTS;
  const networks = list(env, 'ALERT_TARGET_ALLOWED_NETWORKS');
  for (const n of networks) {
    if (parseCidr(n) === undefined) {
      throw new ConfigError(
        'ALERT_TARGET_ALLOWED_NETWORKS',
        `expected comma-separated CIDRs or addresses (e.g. 10.0.0.0/8,127.0.0.1), got '${n.slice(0, 60)}'`,
      );
    }
  }
  const hosts = list(env, 'ALLOWED_HOSTS').map((h) => h.toLowerCase());
  for (const h of hosts) {
    if (!/^[a-z0-9.-]+$/.test(h) && !/^\[[0-9a-f:.]+\]$/.test(h)) {
      throw new ConfigError('ALLOWED_HOSTS', `expected comma-separated host names, got '${h.slice(0, 60)}'`);
    }
  }
  const maxBufferedBytes = int(
    env,
    'OTLP_MAX_BUFFERED_BYTES',
    Math.max(d.maxBufferedBytes, maxBodyBytes),
    1024,
    16 * 1024 * 1024 * 1024,
  );
  if (maxBufferedBytes < maxBodyBytes) {
    throw new ConfigError(
      'OTLP_MAX_BUFFERED_BYTES',
      `must be at least OTLP_MAX_BODY_BYTES (${maxBodyBytes}), or a body of the allowed size could never be read`,
    );
  }
  const maxBufferedPerClient = int(
    env,
    'OTLP_MAX_BUFFERED_PER_CLIENT',
    Math.max(maxBodyBytes, Math.floor(maxBufferedBytes / 4)),
    1024,
    16 * 1024 * 1024 * 1024,
  );
  if (maxBufferedPerClient < maxBodyBytes) {
    throw new ConfigError(
      'OTLP_MAX_BUFFERED_PER_CLIENT',
      `must be at least OTLP_MAX_BODY_BYTES (${maxBodyBytes}), or a body of the allowed size could never be read`,
    );
  }
  const headersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, 100, 600_000);
  const requestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs, 100, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      'HTTP_REQUEST_TIMEOUT_MS',
      `must be at least HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}): the request includes its headers`,
    );
  }
  return {
    bodyTimeoutMs: int(env, 'OTLP_BODY_TIMEOUT_MS', d.bodyTimeoutMs, 100, 3_600_000),
    maxBufferedBytes,
    maxBufferedPerClient,
    minBodyBytesPerSecond: int(
      env,
      'OTLP_MIN_BODY_BYTES_PER_SEC',
      d.minBodyBytesPerSecond,
      0,
      1024 * 1024 * 1024,
    ),
    bodyRateWindowMs: int(env, 'OTLP_BODY_RATE_WINDOW_MS', d.bodyRateWindowMs, 100, 600_000),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, 100, 600_000),
    maxFutureSkewMs: int(env, 'OTLP_MAX_FUTURE_SKEW_MS', d.maxFutureSkewMs, 0, 86_400_000),
    maxAttributeLength: int(env, 'OTLP_MAX_ATTRIBUTE_LENGTH', d.maxAttributeLength, 16, 1024 * 1024),
    maxLabelValues: int(env, 'MAX_LABEL_VALUES', d.maxLabelValues, 1, 1_000_000),
    maxCumulativeSeries: int(env, 'OTLP_MAX_CUMULATIVE_SERIES', d.maxCumulativeSeries, 1, 100_000_000),
    maxCumulativeSeriesBytes: int(
      env,
      'OTLP_MAX_CUMULATIVE_SERIES_BYTES',
      d.maxCumulativeSeriesBytes,
      64 * 1024,
      64 * 1024 * 1024 * 1024,
    ),
    maxItemsPerRequest: int(env, 'OTLP_MAX_ITEMS_PER_REQUEST', d.maxItemsPerRequest, 1, 10_000_000),
    maxAttributesPerRequest: int(
      env,
      'OTLP_MAX_ATTRIBUTES_PER_REQUEST',
      d.maxAttributesPerRequest,
      1,
      100_000_000,
    ),
    maxStringBytes: int(env, 'OTLP_MAX_STRING_BYTES', d.maxStringBytes, 1024, 1024 * 1024 * 1024),
    maxAlertInstances: int(env, 'MAX_ALERT_INSTANCES', d.maxAlertInstances, 10, 1_000_000),
    maxAlertHistory: int(env, 'MAX_ALERT_HISTORY', d.maxAlertHistory, 100, 10_000_000),
    resolvedAlertKeepMs: int(env, 'ALERT_RESOLVED_KEEP_MS', d.resolvedAlertKeepMs, 0, 365 * 86_400_000),
    alertmanagerStaleMs: int(env, 'ALERTMANAGER_STALE_MS', d.alertmanagerStaleMs, 60_000, 365 * 86_400_000),
    allowedTargetNetworks: networks,
    targetTimeoutMs: int(env, 'ALERT_TARGET_TIMEOUT_MS', d.targetTimeoutMs, 100, 300_000),
    allowedHosts: hosts,
    maxSseConnections: int(env, 'SSE_MAX_CONNECTIONS', d.maxSseConnections, 1, 100_000),
    maxSsePerClient: int(env, 'SSE_MAX_PER_CLIENT', d.maxSsePerClient, 1, 100_000),
    maxSseLifetimeMs: int(env, 'SSE_MAX_LIFETIME_MS', d.maxSseLifetimeMs, 1_000, 7 * 86_400_000),
  };
}

function loadPrometheusConfig(env: Env): PrometheusConfig {
  const raw = optional(env, 'PROMETHEUS_URL');
  if (raw === undefined) {
    throw new ConfigError(
      'PROMETHEUS_URL',
      'required with DASHBOARD_SOURCE=prometheus: the base URL of the Prometheus HTTP API, e.g. http://prometheus:9090 (Mimir: https://mimir.example.com/prometheus)',
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PROMETHEUS_URL', `not a URL: '${raw.slice(0, 80)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PROMETHEUS_URL', `expected an http:// or https:// URL, got '${url.protocol}'`);
  }
  if (url.search || url.hash) {
    throw new ConfigError('PROMETHEUS_URL', 'give the base URL only, without a query string or fragment');
  }
  const token = optional(env, 'PROMETHEUS_TOKEN');
  const user = optional(env, 'PROMETHEUS_USER');
  const password = optional(env, 'PROMETHEUS_PASSWORD');
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'PROMETHEUS_USER' : 'PROMETHEUS_PASSWORD',
      'set both PROMETHEUS_USER and PROMETHEUS_PASSWORD, or neither',
    );
  }
  if (token !== undefined && user !== undefined) {
    throw new ConfigError(
      'PROMETHEUS_TOKEN',
      'set either PROMETHEUS_TOKEN (bearer) or PROMETHEUS_USER/PROMETHEUS_PASSWORD (basic), not both',
    );
  }
  return {
    url: raw,
    token,
    user,
    password,
    orgId: optional(env, 'PROMETHEUS_ORG_ID'),
    timeoutMs: int(env, 'PROMETHEUS_TIMEOUT_MS', 10_000, 100, 300_000),
    scrapeIntervalMs: int(env, 'PROMETHEUS_SCRAPE_INTERVAL_MS', 15_000, 1_000, 3_600_000),
    pollIntervalMs: int(env, 'PROMETHEUS_POLL_INTERVAL_MS', 2_000, 250, 3_600_000),
  };
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith('127.');
