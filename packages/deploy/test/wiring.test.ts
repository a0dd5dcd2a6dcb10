import { readdirSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ComposeService,
  commandLine,
  flag,
  hostPort,
  loadAlertmanager,
  loadCollector,
  loadCompose,
  loadPrometheus,
  parsePort,
  parseVolume,
  readText,
  repoPath,
  serviceEnv,
} from './support/repo.js';

// Every port and hostname must agree across docker-compose.yml, the collector config, prometheus.yml and
// alertmanager.yml: a typo in any of them is a silent, empty dashboard or an alert that never arrives.

const compose = loadCompose();
const collector = loadCollector();
const prometheus = loadPrometheus();
const alertmanager = loadAlertmanager();

const service = (name: string): ComposeService => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service '${name}'`);
  return s;
};
/** The port a service listens on inside the compose network, from its own configuration. */
const listens = {
  collectorGrpc: () =>
    hostPort(
      (collector.receivers.otlp as { protocols: { grpc: { endpoint: string } } }).protocols.grpc.endpoint,
    ).port,
  collectorHttp: () =>
    hostPort(
      (collector.receivers.otlp as { protocols: { http: { endpoint: string } } }).protocols.http.endpoint,
    ).port,
  collectorExporter: () => hostPort((collector.exporters.prometheus as { endpoint: string }).endpoint).port,
  collectorSelf: () => collector.service.telemetry!.metrics!.readers![0]!.pull!.exporter!.prometheus!.port!,
  collectorHealth: () => hostPort((collector.extensions!.health_check as { endpoint: string }).endpoint).port,
  prometheus: () => hostPort(flag(commandLine(service('prometheus')), 'web.listen-address')!).port,
  alertmanager: () => hostPort(flag(commandLine(service('alertmanager')), 'web.listen-address')!).port,
  dashboard: () => Number(serviceEnv(service('dashboard')).PORT),
};
const targets = (job: string): string[] => {
  const scrape = prometheus.scrape_configs.find((s) => s.job_name === job);
  if (!scrape) throw new Error(`prometheus.yml has no job ${job}`);
  return scrape.static_configs!.flatMap((c) => c.targets);
};
const published = (name: string) => (service(name).ports ?? []).map(parsePort);
const exposed = (name: string) => [
  ...(service(name).expose ?? []).map((p) => Number(String(p).split('/')[0])),
  ...published(name).map((p) => p.target),
];
/** The source of the mount (host path or named volume) that holds a container path. */
const mountedFrom = (name: string, containerPath: string): string | undefined => {
  for (const v of (service(name).volumes ?? []).map(parseVolume)) {
    if (v.target === containerPath) return v.source.replace(/^\.\//, '');
    if (containerPath.startsWith(`${v.target}/`))
      return posix.join(v.source.replace(/^\.\//, ''), containerPath.slice(v.target.length + 1));
  }
  return undefined;
};

describe('collector <-> compose', () => {
  it('publishes the OTLP receivers and the health check on their configured ports', () => {
    const ports = published('otel-collector');
    for (const port of [listens.collectorGrpc(), listens.collectorHttp(), listens.collectorHealth()]) {
      expect(ports, `port ${port}`).toContainEqual({
        hostIp: '127.0.0.1',
        published: port,
        target: port,
        protocol: 'tcp',
      });
    }
    expect(listens.collectorGrpc()).toBe(4317);
    expect(listens.collectorHttp()).toBe(4318);
    expect(listens.collectorHealth()).toBe(13133);
  });

  it('exposes the metric ports Prometheus scrapes', () => {
    expect(exposed('otel-collector')).toEqual(
      expect.arrayContaining([listens.collectorExporter(), listens.collectorSelf()]),
    );
  });

  it('loads the config file that compose mounts', () => {
    const configFlag = flag(commandLine(service('otel-collector')), 'config');
    expect(mountedFrom('otel-collector', configFlag!)).toBe('otel-collector/config.yaml');
  });

  it('gets every environment variable its config expands from compose', () => {
    const used = [...readText('otel-collector/config.yaml').matchAll(/\$\{env:([A-Z_][A-Z0-9_]*)\}/g)].map(
      (m) => m[1]!,
    );
    expect(used.length).toBeGreaterThan(0);
    const env = serviceEnv(service('otel-collector'));
    for (const name of used) expect(env, name).toHaveProperty(name);
  });

  it("sizes GOMEMLIMIT below memory_limiter's hard limit", () => {
    const s = service('otel-collector');
    const mib = (v: string) => {
      const m = /^(\d+)\s*(m|mib|g|gib)?$/i.exec(v.trim());
      if (!m) throw new Error(`unsupported size ${v}`);
      return Number(m[1]) * (/^g/i.test(m[2] ?? 'm') ? 1024 : 1);
    };
    const limit = mib(String(s.mem_limit));
    const hard =
      (limit *
        Number((collector.processors!.memory_limiter as { limit_percentage: number }).limit_percentage)) /
      100;
    const gomemlimit = mib(serviceEnv(s).GOMEMLIMIT!);
    expect(gomemlimit).toBeLessThan(hard);
    expect(gomemlimit).toBeGreaterThan(hard * 0.6);
  });
});

describe('collector -> dashboard', () => {
  it('exports OTLP/HTTP to the dashboard service on the port it listens on', () => {
    const { host, port } = hostPort(
      (collector.exporters['otlp_http/dashboard'] as { endpoint: string }).endpoint,
    );
    expect(compose.services[host], `no compose service '${host}'`).toBeDefined();
    expect(host).toBe('dashboard');
    expect(port).toBe(listens.dashboard());
    expect(exposed('dashboard')).toContain(port);
  });

  it('authenticates with the same INGEST_TOKEN the dashboard checks', () => {
    const env = { INGEST_TOKEN: 'tok' };
    expect(serviceEnv(service('otel-collector'), env).INGEST_TOKEN).toBe('tok');
    expect(serviceEnv(service('dashboard'), env).INGEST_TOKEN).toBe('tok');
  });
});

describe('Prometheus <-> collector, Alertmanager and compose', () => {
  it('scrapes the collector exporter with honor_labels, on the port the exporter listens on', () => {
    const job = prometheus.scrape_configs.find((s) => s.job_name === 'mcp-resilience')!;
    expect(job.honor_labels).toBe(true);
    const [target] = targets('mcp-resilience').map(hostPort);
    expect(target).toEqual({ host: 'otel-collector', port: listens.collectorExporter() });
    expect(compose.services[target!.host]).toBeDefined();
  });

  it("scrapes the collector's own metrics, Prometheus and Alertmanager where they listen", () => {
    expect(targets('otel-collector').map(hostPort)).toEqual([
      { host: 'otel-collector', port: listens.collectorSelf() },
    ]);
    expect(targets('prometheus').map(hostPort)).toEqual([{ host: 'localhost', port: listens.prometheus() }]);
    expect(targets('alertmanager').map(hostPort)).toEqual([
      { host: 'alertmanager', port: listens.alertmanager() },
    ]);
  });

  it('sends alerts to the Alertmanager service', () => {
    const am = prometheus.alerting!.alertmanagers!.flatMap((a) =>
      a.static_configs!.flatMap((c) => c.targets),
    );
    expect(am.map(hostPort)).toEqual([{ host: 'alertmanager', port: listens.alertmanager() }]);
    expect(published('alertmanager')).toContainEqual(
      expect.objectContaining({ target: listens.alertmanager(), published: listens.alertmanager() }),
    );
  });

  it('loads the config and the rule files compose mounts, at the same relative paths', () => {
    const cmd = commandLine(service('prometheus'));
    const configPath = flag(cmd, 'config.file')!;
    expect(mountedFrom('prometheus', configPath)).toBe('prometheus/prometheus.yml');
    for (const pattern of prometheus.rule_files ?? []) {
      // rule_files are relative to the config file, in the container and here.
      const inContainer = posix.join(posix.dirname(configPath), pattern);
      const hostDir = mountedFrom('prometheus', posix.dirname(inContainer));
      expect(hostDir, `${inContainer} is not mounted`).toBe(posix.join('prometheus', posix.dirname(pattern)));
      const re = new RegExp(`^${posix.basename(pattern).replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`);
      const matched = readdirSync(repoPath(hostDir!)).filter((f) => re.test(f));
      expect(matched, pattern).toEqual(['mcp-resilience.rules.yml']);
    }
    expect(published('prometheus')).toContainEqual(expect.objectContaining({ target: listens.prometheus() }));
    expect(mountedFrom('prometheus', flag(cmd, 'storage.tsdb.path')!)).toBe('prometheus-data');
  });

  it('serves the dashboard in PromQL mode from the Prometheus service', () => {
    const url = serviceEnv(service('dashboard')).PROMETHEUS_URL!;
    expect(hostPort(url)).toEqual({ host: 'prometheus', port: listens.prometheus() });
  });
});

describe('Alertmanager -> dashboard', () => {
  const webhook = alertmanager.receivers.find((r) => r.name === alertmanager.route.receiver)!
    .webhook_configs![0]!;

  it("posts to the dashboard's /api/alerts/webhook on the port it listens on, with resolutions", () => {
    const url = new URL(webhook.url);
    expect(url.hostname).toBe('dashboard');
    expect(compose.services[url.hostname]).toBeDefined();
    expect(Number(url.port)).toBe(listens.dashboard());
    expect(url.pathname).toBe('/api/alerts/webhook');
    expect(webhook.send_resolved).toBe(true);
    expect(alertmanager.route.group_by).toEqual(['alertname', 'mcp_resilience_server']);
  });

  it('authenticates with the INGEST_TOKEN file the container writes at start', () => {
    const auth = webhook.http_config?.authorization;
    expect(auth?.type).toBe('Bearer');
    expect(auth?.credentials).toBeUndefined(); // never a literal secret in the file
    const file = auth!.credentials_file!;
    const cmd = commandLine(service('alertmanager'));
    expect(cmd).toContain(`> ${file} &&`);
    const tmpfs = service('alertmanager').tmpfs;
    expect(Array.isArray(tmpfs) ? tmpfs : [tmpfs]).toContain(dirname(file));
  });

  it('loads the config compose mounts', () => {
    const cmd = commandLine(service('alertmanager'));
    expect(mountedFrom('alertmanager', flag(cmd, 'config.file')!)).toBe('alertmanager/alertmanager.yml');
    expect(mountedFrom('alertmanager', flag(cmd, 'storage.path')!)).toBe('alertmanager-data'); // the named volume
    expect(flag(cmd, 'cluster.listen-address')).toBe(''); // a single instance: no gossip port
  });
});

describe('agents -> collector', () => {
  it('points the demo agents at the collector OTLP/HTTP receiver', () => {
    const endpoint = serviceEnv(service('demo')).OTEL_EXPORTER_OTLP_ENDPOINT!;
    expect(hostPort(endpoint)).toEqual({ host: 'otel-collector', port: listens.collectorHttp() });
    expect(new URL(endpoint).pathname).toBe('/'); // the SDK appends /v1/traces and /v1/metrics
  });

  it('documents the endpoint for agents outside compose', () => {
    expect(readText('docker-compose.yml')).toContain(
      `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${listens.collectorHttp()}`,
    );
    expect(readText('README.md')).toContain(
      `OTEL_EXPORTER_OTLP_ENDPOINT=http://<host>:${listens.collectorHttp()}`,
    );
  });
});
