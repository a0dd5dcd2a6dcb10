import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createModernHostServer } from '../host/createModernHostServer.js';
import type { ForwardOptions } from '../host/forwardRequest.js';
import type { Upstream } from '../upstream/Upstream.js';
import { MODERN_REVISION } from '../upstream/upstreamClient.js';
import { reply } from './httpReplies.js';
import type { UpstreamPool } from './UpstreamPool.js';

/**
 * Whether a request without a session speaks 2026-07-28 or later: its `MCP-Protocol-Version` header says so (an
 * SDK v2 host sends it with `server/discover` and with every request after it). Such requests have no session.
 */
export function isModernRequest(req: IncomingMessage): boolean {
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && version >= MODERN_REVISION;
}

/**
 * The upstream's change notifications, published to the hosts' `subscriptions/listen` streams that opted in (the
 * revision's only way to them); other notifications outside a request (logging) have no way to such hosts.
 */
const toSubscriptions =
  (handler: McpHttpHandler) =>
  (notification: { method: string; params?: Record<string, unknown> }): void => {
    const { notify } = handler;
    if (notification.method === 'notifications/tools/list_changed') notify.toolsChanged();
    else if (notification.method === 'notifications/prompts/list_changed') notify.promptsChanged();
    else if (notification.method === 'notifications/resources/list_changed') notify.resourcesChanged();
    else if (notification.method === 'notifications/resources/updated') {
      const uri = notification.params?.uri;
      if (typeof uri === 'string') notify.resourceUpdated(uri);
    }
  };

/**
 * The gateway's hosts on protocol revision 2026-07-28: no sessions, each request on its own, answered by the SDK
 * v2 `createMcpHandler` of the server (one per server of the config, built on first use) with a forwarding
 * `Server` per request. At most `maxRequests` such requests in flight over all servers (503 beyond).
 */
export class ModernHosts {
  private readonly handlers = new Map<string, McpHttpHandler>();
  private readonly unwatch: (() => void)[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly maxRequests: number,
    private readonly forward: ForwardOptions,
  ) {}

  /** Answers one request for server `name` (`body`: the JSON the gateway already read, within its bounds). */
  async handle(name: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.inFlight >= this.maxRequests) {
      return reply(
        res,
        503,
        -32000,
        `Service Unavailable: ${this.maxRequests} requests are in flight (the limit)`,
      );
    }
    this.inFlight++;
    try {
      const upstream = await this.pool.get(name).catch((error: unknown) => error as Error);
      if (upstream instanceof Error) {
        return reply(
          res,
          502,
          -32603,
          `mcp-resilience: upstream "${name}" is unavailable: ${upstream.message}`,
        );
      }
      await this.serve(this.handlerOf(name, upstream), req, res, body);
    } finally {
      this.inFlight--;
    }
  }

  async close(): Promise<void> {
    for (const stop of this.unwatch.splice(0)) stop();
    await Promise.allSettled([...this.handlers.values()].map((handler) => handler.close()));
    this.handlers.clear();
  }

  private handlerOf(name: string, upstream: Upstream): McpHttpHandler {
    let handler = this.handlers.get(name);
    if (!handler) {
      handler = createMcpHandler(() => createModernHostServer(upstream, this.forward), { legacy: 'reject' });
      this.handlers.set(name, handler);
      this.unwatch.push(upstream.watch(toSubscriptions(handler)));
    }
    return handler;
  }

  /** `node:http` to the web-standard handler and back; a host that closes the response cancels the request. */
  private async serve(
    handler: McpHttpHandler,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const aborted = new AbortController();
    res.once('close', () => aborted.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(key, value);
    }
    const method = req.method ?? 'GET';
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method,
      headers,
      ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
      signal: aborted.signal,
    });
    const response = await handler.fetch(request, method === 'POST' ? { parsedBody: body } : {});
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), res).catch(() => {});
  }
}
