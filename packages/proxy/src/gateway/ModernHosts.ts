import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createModernHostServer } from '../host/createModernHostServer.js';
import type { ForwardOptions } from '../host/forwardRequest.js';
import { InputRounds, type InputRoundsOptions } from '../host/InputRounds.js';
import { RoundLimit } from '../host/RoundLimit.js';
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

/** Options of {@link ModernHosts}. */
export interface ModernHostsOptions extends ForwardOptions, InputRoundsOptions {
  /** At most this many requests in flight over all servers (503 beyond). */
  readonly maxRequests: number;
  /** At most this many calls with `input_required` rounds pending, over all servers. */
  readonly maxInputRounds: number;
}

/**
 * The gateway's hosts on protocol revision 2026-07-28: no sessions, each request on its own, answered by the SDK
 * v2 `createMcpHandler` of the server (one per server of the config, built on first use) with a forwarding
 * `Server` per request. At most `maxRequests` such requests in flight over all servers (503 beyond). A 2025-era
 * upstream's server-to-client requests during a call become `input_required` rounds ({@link InputRounds}, one
 * per server; each call a host of its own), at most `maxInputRounds` pending over all servers.
 */
export class ModernHosts {
  private readonly handlers = new Map<string, McpHttpHandler>();
  private readonly rounds = new Map<string, InputRounds>();
  private readonly unwatch: (() => void)[] = [];
  private readonly limit: RoundLimit;
  private inFlight = 0;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly options: ModernHostsOptions,
  ) {
    this.limit = new RoundLimit(options.maxInputRounds);
  }

  /** The calls with rounds pending, over all servers. */
  get pendingRounds(): number {
    return this.limit.held;
  }

  /** Answers one request for server `name` (`body`: the JSON the gateway already read, within its bounds). */
  async handle(name: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const { maxRequests } = this.options;
    if (this.inFlight >= maxRequests) {
      return reply(
        res,
        503,
        -32000,
        `Service Unavailable: ${maxRequests} requests are in flight (the limit)`,
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
    for (const rounds of this.rounds.values()) rounds.close();
    this.rounds.clear();
    await Promise.allSettled([...this.handlers.values()].map((handler) => handler.close()));
    this.handlers.clear();
  }

  private handlerOf(name: string, upstream: Upstream): McpHttpHandler {
    let handler = this.handlers.get(name);
    if (!handler) {
      const rounds = new InputRounds(this.options, { limit: this.limit, callsAreHosts: true });
      this.rounds.set(name, rounds);
      handler = createMcpHandler(() => createModernHostServer(upstream, this.options, rounds), {
        legacy: 'reject',
      });
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
