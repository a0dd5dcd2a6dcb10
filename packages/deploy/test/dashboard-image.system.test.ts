import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAlertmanager, startAlertmanager } from './support/alertmanager.js';
import { freePort, run, type Started, start, waitFor, waitForHttp } from './support/process.js';
import { loadCompose, parseDockerfile, readText, repoPath } from './support/repo.js';

// The dashboard image without a Docker engine: docker/assemble-dashboard.mjs builds the runtime tree exactly as
// apps/dashboard/Dockerfile does (from the dashboard's build, which turbo runs before this task), into a temporary
// directory outside the repository (so nothing resolves from the repository's node_modules), and the image's CMD
// starts it with the image's environment. Then the collector's and Alertmanager's requests, as configured, go in.

const DASHBOARD_TOKEN = 'dashboard-s3cret';
const INGEST_TOKEN = 'ingest-s3cret';

/** WORKDIR, ENV and CMD of the Dockerfile's final stage, and where its COPY puts the assembled tree. */
function finalStage() {
  const instructions = parseDockerfile(readText('apps/dashboard/Dockerfile'));
  const from = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  const stage = instructions.slice(from);
  const env: Record<string, string> = {};
  for (const i of stage.filter((x) => x.keyword === 'ENV')) {
    for (const [, k, v] of i.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) env[k!] = v!;
  }
  const copy = stage.find((i) => i.keyword === 'COPY' && i.args.startsWith('--from=build'))!;
  const [, source, target] = /--from=build\s+(\S+)\s+(\S+)/.exec(copy.args)!;
  return {
    workdir: stage.filter((i) => i.keyword === 'WORKDIR').at(-1)!.args,
    env,
    cmd: JSON.parse(stage.filter((i) => i.keyword === 'CMD').at(-1)!.args) as string[],
    assembledTo: source!,
    copiedTo: target!,
  };
}

describe('the dashboard image layout (apps/dashboard/Dockerfile)', () => {
  const stage = finalStage();
  let work: string;
  let dashboard: Started;
  let base: string;
  let port: number;
  const auth = { authorization: `Bearer ${DASHBOARD_TOKEN}` };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mcp-resilience-dashboard-image-'));
    const out = join(work, 'out');
    expect(stage.assembledTo).toBe('/out');
    const assembled = run(process.execPath, [repoPath('docker/assemble-dashboard.mjs'), out], {
      timeoutMs: 120_000,
    });
    expect(assembled.code, assembled.output).toBe(0);

    // The image's WORKDIR, relative to where the COPY puts the tree.
    const cwd = join(out, posix.relative(stage.copiedTo, stage.workdir));
    expect(existsSync(cwd), cwd).toBe(true);
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const [command, ...args] = stage.cmd;
    expect(command).toBe('node');
    dashboard = start(process.execPath, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: work,
        ...stage.env,
        // Tests listen on loopback; the image's HOST=0.0.0.0 is asserted by compose.test.ts.
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: join(work, 'data'),
        DASHBOARD_TOKEN,
        INGEST_TOKEN,
      },
    });
    await waitForHttp(`${base}/api/health`, dashboard, 90_000);
  });

  afterAll(async () => {
    const code = dashboard ? await dashboard.stop() : undefined;
    if (work) rmSync(work, { recursive: true, force: true });
    if (dashboard) expect(code, dashboard.output()).toBe(0); // SIGTERM (docker stop) shuts it down cleanly
  });

  it('serves the UI from the standalone build, behind DASHBOARD_TOKEN', async () => {
    expect((await fetch(`${base}/`, { redirect: 'manual' })).status).toBe(401);
    const page = await fetch(`${base}/`, { headers: auth });
    expect(page.status, dashboard.output()).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    // The static assets copied beside the build are served.
    const asset = /\/_next\/static\/[^"'\s]+\.(?:js|css)/.exec(html)?.[0];
    expect(asset, 'the page references a static asset').toBeDefined();
    expect((await fetch(`${base}${asset}`, { headers: auth })).status).toBe(200);
  });

  it('accepts OTLP/HTTP as the collector sends it (Authorization: Bearer INGEST_TOKEN)', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    expect((await post({})).status).toBe(401);
    // The collector's otlp_http/dashboard header, with its ${env:INGEST_TOKEN} expanded.
    const collector = readText('otel-collector/config.yaml');
    const header = /Authorization: (Bearer \$\{env:INGEST_TOKEN\})/
      .exec(collector)![1]!
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the collector's env expansion syntax
      .replace('${env:INGEST_TOKEN}', INGEST_TOKEN);
    const ok = await post({ authorization: header });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({});
  });

  it('passes the compose health check', () => {
    const probe = loadCompose().services.dashboard!.healthcheck!.test as string[];
    const [, command, ...args] = probe;
    expect(command).toBe('node');
    const r = run(
      process.execPath,
      args.map((a) => a.replace('127.0.0.1:3000', `127.0.0.1:${port}`)),
    );
    expect(r.code, r.output).toBe(0);
  });

  describe('receives Alertmanager notifications', () => {
    let alertmanager: RunningAlertmanager;

    beforeAll(async () => {
      alertmanager = await startAlertmanager({ webhookBase: base, token: INGEST_TOKEN });
    });
    afterAll(async () => {
      await alertmanager?.stop();
    });

    it('lists an alert that Alertmanager delivered with INGEST_TOKEN', async () => {
      await alertmanager.post([
        {
          labels: {
            alertname: 'CircuitBreakerOpen',
            mcp_resilience_server: 'weather-e2e',
            severity: 'critical',
          },
          annotations: { summary: 'Circuit breaker for weather-e2e has been open for more than 2 minutes' },
        },
      ]);
      const listed = await waitFor(
        async () => {
          const res = await fetch(`${base}/api/alerts`, { headers: auth });
          const text = await res.text();
          return res.status === 200 && text.includes('weather-e2e') ? text : undefined;
        },
        { timeoutMs: 30_000, describe: () => `${alertmanager.process.output()}\n${dashboard.output()}` },
      );
      expect(listed).toContain('CircuitBreakerOpen');
    });
  });
});
