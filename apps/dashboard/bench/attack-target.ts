/*
 * The dashboard's own request listener (OTLP receiver, API, store; no Next) on 127.0.0.1:0, for bench/attacks.ts
 * to attack in a process of its own (started with --max-old-space-size=768). Prints `listening <url>`.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../lib/config';
import { createRuntime } from '../lib/runtime';
import { createRequestListener } from '../lib/server/handler';
import { createHttpServer } from '../lib/server/http-server';

const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
const rt = createRuntime(config, { log: (m) => console.error(`[target] ${m}`) });
rt.start();
const server = createHttpServer(createRequestListener(rt), config.limits);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void rt.close().finally(() => process.exit(0));
});
