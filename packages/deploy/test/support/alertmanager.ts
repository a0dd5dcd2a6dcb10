import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort, requireBinary, type Started, start, waitForHttp } from './process.js';
import { type AlertmanagerConfig, loadAlertmanager } from './repo.js';

export interface RunningAlertmanager {
  url: string;
  process: Started;
  /** Posts alerts to Alertmanager's API, as Prometheus does. */
  post(
    alerts: { labels: Record<string, string>; annotations?: Record<string, string>; endsAt?: string }[],
  ): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts Debian's Alertmanager (0.25) on 127.0.0.1 with alertmanager/alertmanager.yml, changed only where the test
 * environment differs from compose: the webhook URL's host (the dashboard here, not `dashboard:3000`), the token
 * file (a temporary file, not the container's tmpfs) and the grouping delays (1s instead of 30s / 5m).
 */
export async function startAlertmanager(options: {
  webhookBase: string;
  token: string;
}): Promise<RunningAlertmanager> {
  const binary = requireBinary('prometheus-alertmanager');
  const dir = mkdtempSync(join(tmpdir(), 'mcp-resilience-alertmanager-'));
  const config = structuredClone(loadAlertmanager()) as AlertmanagerConfig & {
    route: { group_wait?: string; group_interval?: string };
  };
  const tokenFile = join(dir, 'ingest_token');
  writeFileSync(tokenFile, options.token, { mode: 0o600 });
  for (const receiver of config.receivers) {
    for (const webhook of receiver.webhook_configs ?? []) {
      const original = new URL(webhook.url);
      webhook.url = new URL(original.pathname, options.webhookBase).href;
      if (webhook.http_config?.authorization) webhook.http_config.authorization.credentials_file = tokenFile;
    }
  }
  config.route.group_wait = '1s';
  config.route.group_interval = '1s';
  const configFile = join(dir, 'alertmanager.yml');
  writeFileSync(configFile, stringify(config));

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = start(binary, [
    `--config.file=${configFile}`,
    `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ]);
  try {
    await waitForHttp(`${url}/-/ready`, process);
  } catch (error) {
    await process.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    process,
    async post(alerts) {
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts.map((a) => ({ annotations: {}, ...a }))),
      });
      if (res.status !== 200) throw new Error(`Alertmanager answered ${res.status}: ${await res.text()}`);
    },
    async stop() {
      await process.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
