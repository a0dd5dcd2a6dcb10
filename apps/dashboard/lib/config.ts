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

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith('127.');
