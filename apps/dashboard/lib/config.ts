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
  readonly alertEvalIntervalMs: number;
  readonly retentionIntervalMs: number;
  readonly breakerStaleMs: number;
  readonly source: 'embedded' | 'prometheus';
  readonly publicUrl: string | undefined;
  /** Set when `source` is 'prometheus'. */
  readonly prometheus: PrometheusConfig | undefined;
}

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
    maxBodyBytes: int(env, 'OTLP_MAX_BODY_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxConcurrentIngest: int(env, 'OTLP_MAX_CONCURRENT', 8, 1, 1024),
    maxStoredCalls: int(env, 'MAX_STORED_CALLS', 50_000, 100, 100_000_000),
    maxStoredAttempts: int(env, 'MAX_STORED_ATTEMPTS', 200_000, 100, 100_000_000),
    alertEvalIntervalMs: int(env, 'ALERT_EVAL_INTERVAL_MS', 15_000, 100, 3_600_000),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 60_000, 1_000, 86_400_000),
    breakerStaleMs: int(env, 'BREAKER_STALE_MS', 10 * 60_000, 1_000, 7 * 86_400_000),
    source,
    publicUrl: optional(env, 'PUBLIC_URL'),
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
