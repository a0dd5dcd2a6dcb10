import { describe, expect, it } from 'vitest';
import { type CollectorConfig, hostPort, loadCollector, loadCompose, readText } from './support/repo.js';

const config = loadCollector();
const image = loadCompose().services['otel-collector']!.image!;
const version = (tag: string): number[] => tag.replace(/^v/, '').split('.').map(Number);
const atLeast = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
};
const pinned = version(image.split(':')[1]!);

type Kind = 'receivers' | 'processors' | 'exporters' | 'connectors' | 'extensions';
const defined = (kind: Kind): string[] => Object.keys((config as CollectorConfig)[kind] ?? {});
/** `otlp_http/dashboard` → `otlp_http`. */
const typeOf = (id: string) => id.split('/')[0]!;

/**
 * Component type names that the 2026 snake_case renames changed, with the first collector version that knows the
 * new name. Older collectors reject the new names; newer ones accept the old names only as deprecated aliases.
 */
const RENAMED: Record<string, { newName: string; since: number[] }> = {
  otlphttp: { newName: 'otlp_http', since: [0, 144, 0] },
  spanmetrics: { newName: 'span_metrics', since: [0, 153, 0] },
  prometheusremotewrite: { newName: 'prometheus_remote_write', since: [0, 153, 0] },
};
/** New names → the version that introduced them. */
const INTRODUCED: Record<string, number[]> = Object.fromEntries(
  Object.values(RENAMED).map(({ newName, since }) => [newName, since]),
);

describe('otel-collector/config.yaml', () => {
  it('targets a pinned contrib image recent enough for its component names', () => {
    expect(image).toMatch(/^otel\/opentelemetry-collector-contrib:0\.\d+\.\d+$/);
    expect(readText('otel-collector/config.yaml')).toContain(image);
    const used = [
      ...defined('receivers'),
      ...defined('processors'),
      ...defined('exporters'),
      ...defined('connectors'),
      ...defined('extensions'),
    ].map(typeOf);
    for (const type of used) {
      expect(
        RENAMED[type],
        `'${type}' is a deprecated name: use '${RENAMED[type]?.newName}'`,
      ).toBeUndefined();
      const since = INTRODUCED[type];
      if (since) expect(atLeast(pinned, since), `'${type}' needs collector >= ${since.join('.')}`).toBe(true);
    }
    // The otlp exporter was renamed otlp_grpc in 0.144; the otlp *receiver* keeps its name.
    expect(defined('exporters').map(typeOf)).not.toContain('otlp');
  });

  it('receives OTLP over gRPC (4317) and HTTP (4318) on all interfaces', () => {
    const protocols = (config.receivers.otlp as { protocols: Record<string, { endpoint: string }> })
      .protocols;
    expect(protocols.grpc?.endpoint).toBe('0.0.0.0:4317');
    expect(protocols.http?.endpoint).toBe('0.0.0.0:4318');
  });

  it('binds every server endpoint to 0.0.0.0 (the default host is localhost, unreachable in a container)', () => {
    const endpoints: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'endpoint' && typeof v === 'string' && !/^https?:\/\//.test(v))
            endpoints.push(`${path}.${k}=${v}`);
          walk(v, `${path}.${k}`);
        }
      }
    };
    walk(config.receivers, 'receivers');
    walk(config.extensions, 'extensions');
    walk(config.exporters, 'exporters');
    expect(endpoints.length).toBeGreaterThanOrEqual(4);
    for (const e of endpoints) expect(e.split('=')[1], e).toMatch(/^0\.0\.0\.0:\d+$/);
    const reader = config.service.telemetry?.metrics?.readers?.[0]?.pull?.exporter?.prometheus;
    expect(reader).toEqual({ host: '0.0.0.0', port: 8888 });
  });

  it('only references components that are defined, and uses every one it defines', () => {
    const pipelines = Object.entries(config.service.pipelines);
    expect(pipelines.map(([n]) => n).sort()).toEqual(['metrics', 'traces']);
    const used = {
      receivers: new Set<string>(),
      processors: new Set<string>(),
      exporters: new Set<string>(),
    };
    for (const [name, p] of pipelines) {
      for (const kind of ['receivers', 'processors', 'exporters'] as const) {
        for (const id of p[kind] ?? []) {
          expect(defined(kind), `pipeline ${name}: ${kind.slice(0, -1)} '${id}' is not defined`).toContain(
            id,
          );
          used[kind].add(id);
        }
      }
    }
    for (const kind of ['receivers', 'processors', 'exporters'] as const) {
      expect([...used[kind]].sort(), kind).toEqual(defined(kind).sort());
    }
    expect(config.service.extensions ?? []).toEqual(defined('extensions'));
    expect(defined('extensions')).toEqual(['health_check']);
  });

  it('puts memory_limiter first and batch last in every pipeline', () => {
    for (const [name, p] of Object.entries(config.service.pipelines)) {
      const processors = p.processors ?? [];
      expect(processors[0], name).toBe('memory_limiter');
      expect(processors.at(-1), name).toBe('batch');
    }
    const limiter = config.processors?.memory_limiter as Record<string, unknown>;
    expect(limiter.check_interval).toBe('1s');
    expect(limiter.limit_percentage).toBeGreaterThan(limiter.spike_limit_percentage as number);
    const batch = config.processors?.batch as Record<string, number>;
    expect(batch.send_batch_max_size).toBeGreaterThanOrEqual(batch.send_batch_size!);
  });

  it('exports metrics to Prometheus with the design names, traces and metrics to the dashboard, and to debug', () => {
    const prom = config.exporters.prometheus as Record<string, unknown>;
    // Pinned translation: mcp.resilience.retries -> mcp_resilience_retries_total, unit s -> _seconds.
    expect(prom.translation_strategy).toBe('UnderscoreEscapingWithSuffixes');
    expect(prom).not.toHaveProperty('add_metric_suffixes'); // deprecated, ignored since 0.132
    expect(prom).not.toHaveProperty('namespace'); // would prefix every name
    expect(prom).not.toHaveProperty('resource_to_telemetry_conversion'); // job/instance come from service.*
    expect(config.service.pipelines.metrics?.exporters).toEqual(
      expect.arrayContaining(['prometheus', 'otlp_http/dashboard', 'debug']),
    );
    expect(config.service.pipelines.traces?.exporters).toEqual(['otlp_http/dashboard', 'debug']);
    const dashboard = config.exporters['otlp_http/dashboard'] as Record<string, unknown>;
    expect(hostPort(dashboard.endpoint as string)).toEqual({ host: 'dashboard', port: 3000 });
    // The base URL only: the exporter appends /v1/traces and /v1/metrics, the dashboard's OTLP paths.
    expect(new URL(dashboard.endpoint as string).pathname).toBe('/');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the collector's env expansion syntax
    expect(dashboard.headers).toEqual({ Authorization: 'Bearer ${env:INGEST_TOKEN}' });
    expect((config.exporters.debug as Record<string, unknown>).verbosity).toBe('basic');
  });

  it('explains every setting in a one-line comment', () => {
    const lines = readText('otel-collector/config.yaml').split('\n');
    const undocumented = lines
      .map((line, i) => ({ line, n: i + 1, previous: lines[i - 1] ?? '' }))
      // A setting is a key with a value on the same line (scalar or [flow, list]); block keys only give structure.
      .filter(({ line }) => /^\s*(?:- )?[A-Za-z_][\w/.-]*:\s+[^#\s]/.test(line))
      .filter(({ line, previous }) => !line.includes(' # ') && !/^\s*#/.test(previous))
      .map(({ line, n }) => `${n}: ${line.trim()}`);
    expect(undocumented).toEqual([]);
  });
});
