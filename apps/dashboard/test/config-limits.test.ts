import { describe, expect, it } from 'vitest';
import { ConfigError, LIMIT_DEFAULTS, loadConfig } from '@/lib/config';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('bounds configuration', () => {
  it('has documented defaults', () => {
    expect(loadConfig({}).limits).toEqual(LIMIT_DEFAULTS);
    expect(LIMIT_DEFAULTS).toMatchObject({
      maxFutureSkewMs: 300_000,
      maxAttributeLength: 1024,
      maxLabelValues: 1000,
      maxCumulativeSeries: 100_000,
      maxBufferedPerClient: 20 * 1024 * 1024,
      minBodyBytesPerSecond: 8192,
      bodyRateWindowMs: 5000,
    });
    // one client's share: the larger of a body and a quarter of the budget
    expect(
      loadConfig({ OTLP_MAX_BUFFERED_BYTES: String(256 * 1024 * 1024) }).limits.maxBufferedPerClient,
    ).toBe(64 * 1024 * 1024);
  });

  it('reads every bound from its variable', () => {
    const l = loadConfig({
      OTLP_BODY_TIMEOUT_MS: '5000',
      OTLP_MAX_FUTURE_SKEW_MS: '0',
      ALERT_TARGET_ALLOWED_NETWORKS: '10.0.0.0/8, 127.0.0.1 ,fd00::/8',
      ALLOWED_HOSTS: 'Dash.Example.com,metrics.internal',
      SSE_MAX_PER_CLIENT: '3',
      OTLP_MAX_BUFFERED_PER_CLIENT: String(30 * 1024 * 1024),
      OTLP_MIN_BODY_BYTES_PER_SEC: '0',
      OTLP_BODY_RATE_WINDOW_MS: '2000',
    }).limits;
    expect(l).toMatchObject({
      bodyTimeoutMs: 5000,
      maxFutureSkewMs: 0,
      allowedTargetNetworks: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'],
      allowedHosts: ['dash.example.com', 'metrics.internal'],
      maxSsePerClient: 3,
      maxBufferedPerClient: 30 * 1024 * 1024,
      minBodyBytesPerSecond: 0,
      bodyRateWindowMs: 2000,
    });
  });

  it.each([
    [
      { ALERT_TARGET_ALLOWED_NETWORKS: '10.0.0.0/8,intranet' },
      'ALERT_TARGET_ALLOWED_NETWORKS',
      /got 'intranet'/,
    ],
    [{ ALERT_TARGET_ALLOWED_NETWORKS: '10.0.0.0/40' }, 'ALERT_TARGET_ALLOWED_NETWORKS', /CIDRs/],
    [{ ALLOWED_HOSTS: 'http://x.example' }, 'ALLOWED_HOSTS', /host names/],
    [{ OTLP_MAX_BUFFERED_BYTES: '2048' }, 'OTLP_MAX_BUFFERED_BYTES', /at least OTLP_MAX_BODY_BYTES/],
    [
      { OTLP_MAX_BUFFERED_PER_CLIENT: '2048' },
      'OTLP_MAX_BUFFERED_PER_CLIENT',
      /at least OTLP_MAX_BODY_BYTES/,
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' },
      'HTTP_REQUEST_TIMEOUT_MS',
      /at least/,
    ],
    [{ MAX_LABEL_VALUES: '0' }, 'MAX_LABEL_VALUES', /between 1 and/],
    [{ SSE_MAX_CONNECTIONS: 'many' }, 'SSE_MAX_CONNECTIONS', /integer/],
    [{ PUBLIC_URL: 'dash.example.com' }, 'PUBLIC_URL', /not a URL/],
  ])('refuses %o naming %s', (env, variable, message) => {
    const e = refusal(env);
    expect(e.variable).toBe(variable);
    expect(e.message).toMatch(message);
  });
});
