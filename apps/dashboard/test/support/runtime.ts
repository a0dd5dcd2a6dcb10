import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { type Config, loadConfig } from '@/lib/config';
import { createRuntime, type Runtime, type RuntimeOptions } from '@/lib/runtime';
import { createRequestListener } from '@/lib/server/handler';
import { createHttpServer } from '@/lib/server/http-server';
import { ServedRequests } from './served-requests';

export function tempDir(prefix = 'dashboard-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ DATA_DIR: tempDir(), ...env });
}

export interface TestServer {
  readonly url: string;
  readonly runtime: Runtime;
  readonly server?: http.Server;
  /** The requests dispatched to the listener, to wait on. */
  readonly served: ServedRequests;
  close(): Promise<void>;
}

/** The dashboard's request listener (OTLP, API, SSE; no Next) on 127.0.0.1:0. */
export async function startTestServer(
  env: Record<string, string> = {},
  options: RuntimeOptions = {},
): Promise<TestServer> {
  const runtime = createRuntime(testConfig(env), { log: () => undefined, ...options });
  const listener = createRequestListener(runtime);
  const served = new ServedRequests();
  const server = createHttpServer((req, res) => {
    const done = listener(req, res);
    served.record(req, res, done);
  }, runtime.config.limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    server,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}

/** `startTestServer`, closed when the test that calls it ends (call it inside a test). */
export function testServer(env: Record<string, string> = {}): Promise<TestServer> {
  const started = startTestServer(env);
  onTestFinished(async () => {
    const server = await started.catch(() => undefined); // a failed start fails the test itself
    await server?.close();
  });
  return started;
}
