import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseGatewayConfig } from './loadGatewayConfig.js';
import { type Gateway, gatewayDefaults, startGateway } from './startGateway.js';

let gateway: Gateway;
beforeAll(async () => {
  // A server that is never reached: the health check does not need it.
  const config = parseGatewayConfig({ mcpServers: { idle: { url: 'http://127.0.0.1:9/mcp' } } }, 'inline');
  gateway = await startGateway({ config, port: 0 });
});
afterAll(async () => {
  await gateway?.close();
});

/** The response headers of one request on a keep-alive connection. */
const headersOf = (url: string) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const req = request(url, { headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });

it('keeps idle keep-alive connections 65 s and says so: hosts do not reuse a socket the gateway just closed', async () => {
  // With Node's default (5 s), busy hosts reused sockets the gateway closed meanwhile: "fetch failed" (ECONNRESET).
  expect(gatewayDefaults.keepAliveTimeoutMs).toBe(65_000);
  const headers = await headersOf(`${gateway.url}/healthz`);
  expect(headers['keep-alive']).toBe('timeout=65');
});
