import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBinary, type Started, start, waitFor, waitForHttp } from './support/process.js';
import { isAlert, loadPrometheus, loadRules, repoPath } from './support/repo.js';

// Prometheus 2.42 (Debian) started with prometheus/prometheus.yml as it is, on 127.0.0.1 with a temporary data
// directory: the config loads, the rules load, the scrape jobs and the Alertmanager are configured. (The compose
// hostnames do not resolve here, so scrapes fail; the contract suite covers real data.)
interface ApiResponse<T> {
  status: string;
  data: T;
}
interface RulesData {
  groups: { name: string; file: string; rules: { name: string; type: string; health: string }[] }[];
}
interface TargetsData {
  activeTargets: { scrapePool: string; scrapeUrl: string; labels: Record<string, string> }[];
}
interface AlertmanagersData {
  activeAlertmanagers: { url: string }[];
}

describe('Prometheus with prometheus/prometheus.yml', () => {
  let dataDir: string;
  let prometheus: Started;
  let base: string;
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`);
    expect(res.status, path).toBe(200);
    const body = (await res.json()) as ApiResponse<T>;
    expect(body.status).toBe('success');
    return body.data;
  };

  beforeAll(async () => {
    const binary = requireBinary('prometheus');
    dataDir = mkdtempSync(join(tmpdir(), 'mcp-resilience-prometheus-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prometheus = start(binary, [
      `--config.file=${repoPath('prometheus/prometheus.yml')}`,
      `--storage.tsdb.path=${dataDir}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    await waitForHttp(`${base}/-/ready`, prometheus);
  });

  afterAll(async () => {
    await prometheus?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads every rule of the rules file', async () => {
    const data = await api<RulesData>('/api/v1/rules');
    const expected = loadRules().groups.map((g) => ({
      name: g.name,
      rules: g.rules.map((r) =>
        isAlert(r) ? { name: r.alert, type: 'alerting' } : { name: r.record, type: 'recording' },
      ),
    }));
    const loaded = data.groups.map((g) => ({
      name: g.name,
      rules: g.rules.map((r) => ({ name: r.name, type: r.type })),
    }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(loaded.sort(byName)).toEqual(expected.sort(byName));
    for (const g of data.groups) expect(g.file).toBe(repoPath('prometheus/rules/mcp-resilience.rules.yml'));
  });

  it('scrapes the collector, itself and Alertmanager, keeping the exporter labels on the collector job', async () => {
    const jobs = loadPrometheus().scrape_configs.map((s) => s.job_name);
    // Service discovery hands the static targets over a few seconds after start.
    const data = await waitFor(
      async () => {
        const d = await api<TargetsData>('/api/v1/targets');
        return new Set(d.activeTargets.map((t) => t.scrapePool)).size === jobs.length ? d : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const pools = [...new Set(data.activeTargets.map((t) => t.scrapePool))].sort();
    expect(pools).toEqual(jobs.sort());
    const collector = data.activeTargets.find((t) => t.scrapePool === 'mcp-resilience')!;
    expect(collector.scrapeUrl).toBe('http://otel-collector:8889/metrics');
    const config = await api<{ yaml: string }>('/api/v1/status/config');
    expect(config.yaml).toMatch(/job_name: mcp-resilience\n\s+honor_labels: true/);
  });

  it('sends alerts to alertmanager:9093', async () => {
    const data = await waitFor(
      async () => {
        const d = await api<AlertmanagersData>('/api/v1/alertmanagers');
        return d.activeAlertmanagers.length > 0 ? d : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(data.activeAlertmanagers.map((a) => a.url)).toEqual(['http://alertmanager:9093/api/v2/alerts']);
  });
});
