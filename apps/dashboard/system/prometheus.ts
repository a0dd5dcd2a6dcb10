import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/*
 * A real Prometheus (Debian's 2.42, /usr/bin/prometheus) for the contract suite: on 127.0.0.1, on a free port,
 * with a temporary TSDB directory, scraping the given targets every `scrapeIntervalMs`.
 */

export const PROMETHEUS_BIN = '/usr/bin/prometheus';
export const PROMTOOL_BIN = '/usr/bin/promtool';

/** A free TCP port on 127.0.0.1 (bound to port 0, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RelabelRule {
  readonly source_labels?: string[];
  readonly regex?: string;
  readonly target_label?: string;
  readonly replacement?: string;
  readonly action?: string;
}

export interface PrometheusOptions {
  readonly targets: readonly string[];
  readonly scrapeIntervalMs: number;
  readonly jobName?: string;
  /** metric_relabel_configs of the scrape job. */
  readonly metricRelabel?: readonly RelabelRule[];
  /**
   * Samples the TSDB starts with (OpenMetrics text with timestamps, ending `# EOF`), written into blocks by
   * `promtool tsdb create-blocks-from openmetrics`: past data at chosen times, without waiting for scrapes.
   */
  readonly backfill?: string;
}

export interface RunningPrometheus {
  readonly url: string;
  readonly process: ChildProcess;
  readonly output: () => string;
  /** One instant query, values as numbers. */
  query(expr: string, timeMs?: number): Promise<Array<{ labels: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  if (!fs.existsSync(PROMETHEUS_BIN)) {
    throw new Error(
      `Prometheus not found at ${PROMETHEUS_BIN}: the contract suite needs Debian's Prometheus 2.42 (apt-get install -y prometheus)`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-prometheus-'));
  const interval = `${options.scrapeIntervalMs}ms`;
  // JSON is YAML: no YAML library needed.
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    scrape_configs: [
      {
        job_name: options.jobName ?? 'contract',
        static_configs: [{ targets: options.targets }],
        metric_relabel_configs: options.metricRelabel ?? [],
      },
    ],
  };
  const configFile = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  if (options.backfill !== undefined) {
    const input = path.join(dir, 'backfill.om');
    fs.writeFileSync(input, options.backfill);
    execFileSync(PROMTOOL_BIN, ['tsdb', 'create-blocks-from', 'openmetrics', input, path.join(dir, 'data')], {
      stdio: 'pipe',
    });
  }
  const port = await freePort();
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1d',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (c) => {
    output += c;
  });
  child.stderr!.on('data', (c) => {
    output += c;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
    try {
      const r = await fetch(`${url}/-/ready`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    output: () => output,
    async query(expr, timeMs = Date.now()) {
      const body = new URLSearchParams({ query: expr, time: (timeMs / 1000).toFixed(3) });
      const r = await fetch(`${url}/api/v1/query`, { method: 'POST', body });
      const json = (await r.json()) as {
        status: string;
        error?: string;
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (json.status !== 'success') throw new Error(`query failed: ${json.error} (${expr})`);
      return json.data.result.map((x) => ({ labels: x.metric, value: Number(x.value[1]) }));
    },
    stop,
  };
}
