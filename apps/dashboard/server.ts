import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import next from 'next';
import { ConfigError, isLoopback, loadConfig } from './lib/config';
import { createRuntime, setRuntime } from './lib/runtime';
import { createRequestListener } from './lib/server/handler';
import { createHttpServer } from './lib/server/http-server';

/*
 * The dashboard's server: one node:http server on HOST:PORT (default 127.0.0.1:3000) that serves the OTLP
 * receiver (/v1/traces, /v1/metrics), the SSE stream and the JSON API itself, and hands every other request
 * to Next.js. `npm run start` runs the bundled dist/server.mjs; `npm run dev` runs this file with tsx.
 */

const dev = process.argv.includes('--dev');
const here = path.dirname(fileURLToPath(import.meta.url));
// dist/server.mjs lives one level below the app directory.
const dir = path.basename(here) === 'dist' ? path.dirname(here) : here;

function warnIfExposed(host: string, protectedUi: boolean, protectedIngest: boolean) {
  if (isLoopback(host)) return;
  const lines: string[] = [];
  if (!protectedUi)
    lines.push(`the UI and API are OPEN to anyone who can reach ${host}: set DASHBOARD_TOKEN`);
  if (!protectedIngest) lines.push(`OTLP ingest is OPEN to anyone who can reach ${host}: set INGEST_TOKEN`);
  if (lines.length === 0) return;
  const bar = '!'.repeat(100);
  console.warn(
    `\n${bar}\n!! WARNING: listening beyond loopback (HOST=${host}) without authentication:\n${lines.map((l) => `!!   - ${l}`).join('\n')}\n${bar}\n`,
  );
}

async function main() {
  let config: ReturnType<typeof loadConfig>;
  let runtime: ReturnType<typeof createRuntime>;
  try {
    config = loadConfig();
    runtime = createRuntime(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[dashboard] invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  setRuntime(runtime);
  runtime.start();

  if (!dev) {
    // As Next's own standalone server.js does: use the configuration serialised at build time, so that
    // next.config.ts is not needed at run time (standalone output, containers).
    const required = path.join(dir, '.next', 'required-server-files.json');
    if (fs.existsSync(required) && !process.env.__NEXT_PRIVATE_STANDALONE_CONFIG) {
      const { config: nextConfig } = JSON.parse(fs.readFileSync(required, 'utf8')) as { config: unknown };
      process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(nextConfig);
    }
  }
  const app = next({ dev, dir, hostname: config.host, port: config.port });
  const handle = app.getRequestHandler();
  await app.prepare();

  const server = createHttpServer(
    createRequestListener(runtime, (req, res) => handle(req, res)),
    config.limits,
  );
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    console.log(
      `[dashboard] listening on http://${host}:${port} (data: ${path.resolve(config.dataDir)}, ${dev ? 'dev' : 'production'})`,
    );
    console.log(`[dashboard] OTLP/HTTP: OTEL_EXPORTER_OTLP_ENDPOINT=http://${host}:${port}`);
    warnIfExposed(
      config.host,
      runtime.config.dashboardToken !== undefined || config.dashboardUser !== undefined,
      config.ingestToken !== undefined,
    );
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[dashboard] ${signal}: shutting down`);
    server.close();
    server.closeAllConnections();
    void runtime.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
  console.error(`[dashboard] failed to start: ${(error as Error)?.stack ?? String(error)}`);
  process.exit(1);
});
