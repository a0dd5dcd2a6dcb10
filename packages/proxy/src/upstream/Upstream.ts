import {
  connectWithResilience,
  forCaller,
  type McpResilienceOptions,
  type ObservedFetch,
  observeFetch,
  TERMINAL_OUTCOMES,
  withCallContext,
} from '@mcp-resilience/middleware/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ClientCapabilities,
  Implementation,
  Root,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { breakerWatch } from './breakerWatch.js';
import { isMomentary } from './ForwardedError.js';
import type { HostLink } from './HostLink.js';
import { type ProgressListener, ProgressRouter } from './ProgressRouter.js';
import { passthroughResult } from './passthroughResult.js';
import { Respawner, type RespawnOptions } from './Respawner.js';
import { type InFlight, routeToHost } from './routeToHost.js';
import { SingleConnect } from './SingleConnect.js';
import { StdioHandover } from './StdioHandover.js';
import { transportFactory } from './transportFactory.js';
import { describeUpstream, type UpstreamSpec } from './UpstreamSpec.js';
import { refusesLegacyEra, type UpstreamClient, type UpstreamEra, upstreamClient } from './upstreamClient.js';

type JsonRpcRequestLike = { method: string; params?: Record<string, unknown> };

/** Options of {@link Upstream.open}. All optional but `spec`. */
export interface UpstreamOptions {
  readonly spec: UpstreamSpec;
  /** The resilience options (`withResilience`'s), merged over {@link upstreamDefaults}. */
  readonly resilience?: McpResilienceOptions;
  /** The client identity the upstream sees. Default: the proxy's. */
  readonly clientInfo?: Implementation;
  /** The client capabilities announced to the upstream (the host's, in `wrap` and `connect`). */
  readonly capabilities?: ClientCapabilities;
  /**
   * The client capabilities announced instead when the upstream speaks 2026-07-28, where they only decide which
   * `input_required` rounds the proxy takes on (each is sent to the host whose call is in flight, as a
   * server-to-client request of 2025-11-25 is). Default: `capabilities`. The gateway's shared upstreams announce
   * `elicitation` and `sampling` on 2025-11-25 (not `roots`, which a server asks at once, with no host's call to
   * answer) but every input method on 2026-07-28.
   */
  readonly modernCapabilities?: ClientCapabilities;
  /** How a stdio upstream that exits by itself is restarted (at once, with backoff); `false`: at the next request. */
  readonly respawn?: RespawnOptions | false;
  /**
   * Hosts attached before the connection, so that what the upstream asks right after it (`roots/list`) has a
   * host to go to. Default: none (hosts {@link Upstream.attach} later).
   */
  readonly hosts?: readonly HostLink[];
  /**
   * The roots the proxy answers the upstream's `roots/list` with itself, at any time, never asking a host (a
   * gateway server's `roots`; announce `roots` in `capabilities` with them). Default: none, the request is routed.
   */
  readonly roots?: readonly Root[];
}

/**
 * Defaults of the proxy's resilience layer: failures of `tools/call` come back as `isError` results with the
 * sentence the model reads (non-retryable ones and every terminal outcome); other methods get JSON-RPC errors.
 */
export const upstreamDefaults = {
  resultOn: ['non_retryable', ...TERMINAL_OUTCOMES],
  clientInfo: { name: 'mcp-resilience', version: '0.1.0' },
} as const satisfies { resultOn: McpResultOn; clientInfo: Implementation };

type McpResultOn = NonNullable<NonNullable<McpResilienceOptions['mcp']>['resultOn']>;

/**
 * The user's options (flat or grouped) with the proxy's defaults in the `mcp` group: `resultOn` unless the user chose
 * one (`resultOn`, `nonRetryableAs` or `mcp.resultOn`), and the proxy's own `fetch` for an HTTP upstream.
 */
function withUpstreamDefaults(
  user: McpResilienceOptions,
  fetch: ObservedFetch | undefined,
): McpResilienceOptions {
  const { fetch: _replaced, ...rest } = user;
  const mcp = { ...user.mcp };
  const chosen =
    user.resultOn !== undefined || user.nonRetryableAs !== undefined || mcp.resultOn !== undefined;
  if (!chosen) mcp.resultOn = upstreamDefaults.resultOn;
  if (fetch) mcp.fetch = fetch;
  return { ...(fetch ? rest : user), mcp };
}

/** The logical server name the user gave, flat or grouped. */
const serverOf = (options: McpResilienceOptions): string | undefined => options.mcp?.server ?? options.server;

/**
 * One upstream MCP server behind the proxy: an SDK `Client` connected through `connectWithResilience` (so every
 * request runs the same pipeline as in-process: classified, retried when safe, breaker, budget, negative cache,
 * telemetry, reconnection after a crash or a lost session), shared by the hosts attached to it. Server-to-client
 * requests and notifications from the upstream go back to the hosts. Both protocol eras: 2025-11-25 (and earlier)
 * first, then 2026-07-28 when the upstream refuses those (see {@link Upstream.open}).
 */
export class Upstream {
  readonly spec: UpstreamSpec;
  private serverName: string;
  /** The protocol era spoken with the upstream. */
  readonly era: UpstreamEra;
  private readonly raw: UpstreamClient;
  private resilient: UpstreamClient | undefined;
  private readonly hosts = new Set<HostLink>();
  private readonly watchers = new Set<(notification: JsonRpcRequestLike) => void>();
  private readonly inFlight = new Map<object, CallInFlight>();
  private readonly progress = new ProgressRouter();
  private respawner: Respawner | undefined;
  private readonly connects: SingleConnect;
  private readonly views = new WeakMap<HostLink, UpstreamClient>();
  private ownRoots: readonly Root[] | undefined;

  private constructor(spec: UpstreamSpec, era: UpstreamEra, raw: UpstreamClient, name: string) {
    this.spec = spec;
    this.era = era;
    this.raw = raw;
    this.serverName = name;
    this.connects = new SingleConnect(raw);
  }

  /** The logical server name: the breaker key and `mcp.resilience.server` in telemetry. */
  get name(): string {
    return this.serverName;
  }

  /**
   * Connects to the upstream (retried like any call); rejects with a `ResilienceError` when it cannot. The
   * protocol revision is negotiated as a 2025-11-25 client does (`initialize`, so that a host of that revision
   * gets the upstream's server-to-client requests, sessions, `logging/setLevel` as they are); an upstream that
   * answers it `-32022` (it speaks only 2026-07-28) is connected again with `server/discover`, a stdio one on
   * the same child (one open, one process).
   */
  static async open(options: UpstreamOptions): Promise<Upstream> {
    const server = serverOf(options.resilience ?? {}) ?? describeUpstream(options.spec);
    const handover = options.spec.kind === 'stdio' ? new StdioHandover({ server }) : undefined;
    try {
      return await Upstream.openOn('legacy', options, handover);
    } catch (error) {
      if (!refusesLegacyEra(error)) throw error;
      return await Upstream.openOn('modern', options, handover);
    } finally {
      await handover?.discard();
    }
  }

  private static async openOn(
    era: UpstreamEra,
    options: UpstreamOptions,
    handover: StdioHandover | undefined,
  ): Promise<Upstream> {
    const raw = upstreamClient(
      era,
      options.clientInfo ?? upstreamDefaults.clientInfo,
      (era === 'modern' ? options.modernCapabilities : undefined) ?? options.capabilities ?? {},
      // Called only once connected, when `upstream` exists.
      (request, signal) => upstream.toHost(request, signal),
    );
    const fetch = options.spec.kind === 'http' ? observeFetch() : undefined;
    const user = options.resilience ?? {};
    // A shared pipeline (`resilience`) has its recorder already: its breakers stay unseen, restarts unguarded.
    const watch = user.resilience ? undefined : breakerWatch(user.recorder);
    const resilience = withUpstreamDefaults(watch ? { ...user, recorder: watch.recorder } : user, fetch);
    const upstream = new Upstream(options.spec, era, raw, serverOf(resilience) ?? 'mcp');
    upstream.ownRoots = options.roots;
    for (const host of options.hosts ?? []) upstream.attach(host);
    raw.fallbackNotificationHandler = (notification) => upstream.broadcast(notification);
    const factory = transportFactory(options.spec, fetch, era, handover);
    const connection = () => upstream.progress.hook(factory());
    const resilient = await connectWithResilience(raw, connection, resilience);
    upstream.resilient = resilient;
    if (options.spec.kind === 'stdio' && options.respawn !== false) {
      const respawner = new Respawner(
        () =>
          resilient.connect(connection() as Transport).catch(async (error: unknown) => {
            await raw.close().catch(() => {});
            throw error;
          }),
        // Connected by a request meanwhile, or a breaker is open: the pipeline's probe restarts it when due.
        () => raw.transport !== undefined || watch?.guarded(upstream.name) === true,
        options.respawn,
      );
      respawner.up();
      raw.onclose = () => respawner.lost();
      upstream.respawner = respawner;
    }
    if (serverOf(resilience) === undefined) {
      upstream.serverName = raw.getServerVersion()?.name ?? 'mcp';
    }
    return upstream;
  }

  /**
   * The connected client behind the resilience layer (a fallback target for other upstreams). Typed as the v1
   * `Client` that `fallbacks` name; on 2026-07-28 it is the v2 one, which has the same calls.
   */
  get client(): Client {
    if (!this.resilient) throw new Error(`upstream "${this.name}" is not connected`);
    return this.resilient as unknown as Client;
  }

  /** The roots the proxy answers the upstream's `roots/list` with itself (the `roots` option), if any. */
  get roots(): readonly Root[] | undefined {
    return this.ownRoots;
  }

  /** What the upstream answered `initialize` with: its capabilities, identity and instructions. */
  get capabilities(): ServerCapabilities {
    return this.raw.getServerCapabilities() ?? {};
  }
  get serverInfo(): Implementation {
    return this.raw.getServerVersion() ?? { name: this.name, version: '0.0.0' };
  }
  get instructions(): string | undefined {
    return this.raw.getInstructions();
  }

  /** Attaches a host: it receives the upstream's notifications and server-to-client requests. */
  attach(host: HostLink): () => void {
    this.hosts.add(host);
    return () => this.hosts.delete(host);
  }

  /**
   * Watches the upstream's notifications without becoming a host (the server-to-client requests never go to a
   * watcher): how hosts without a session of their own (2026-07-28) hear of `list_changed`.
   */
  watch(listener: (notification: JsonRpcRequestLike) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /**
   * Sends a host's request through the resilience pipeline. `options` are the SDK's request options (`signal`,
   * `timeout`...): the SDK tells the upstream of a cancellation. With `onProgress`, each attempt asks for
   * progress (a token of its own) and the upstream's progress notifications go to `onProgress`.
   */
  async request(
    host: HostLink,
    requestId: string | number,
    request: JsonRpcRequestLike,
    options: Record<string, unknown>,
    onProgress?: ProgressListener,
  ): Promise<unknown> {
    const key = {};
    const call: CallInFlight = { host, requestId, momentary: false };
    this.inFlight.set(key, call);
    const routed = onProgress ? this.progress.register(request.params ?? {}, onProgress) : undefined;
    try {
      if (!this.resilient) throw new Error(`upstream "${this.name}" is not connected`);
      // A restart under way: wait for it (its failure is the request's reconnection to retry), do not race it.
      const restarting = this.respawner?.pending;
      if (restarting) await restarting.catch(() => {});
      const sent = routed ? { ...request, params: routed.params } : request;
      // `onprogress` makes the SDK send a progress token and reset the attempt's time limit on progress.
      const sdkOptions = routed ? { ...options, onprogress: () => {} } : options;
      const client = request.method === 'tools/call' ? this.callClient(call) : this.clientFor(host);
      return await client.request(sent as never, passthroughResult as never, sdkOptions);
    } finally {
      this.inFlight.delete(key);
      routed?.done();
    }
  }

  /** The pipeline's client for `host`'s calls: its own view ({@link forCaller}) when it has a `caller`. */
  private clientFor(host: HostLink): UpstreamClient {
    const resilient = this.resilient as UpstreamClient;
    if (host.caller === undefined) return resilient;
    let view = this.views.get(host);
    if (view === undefined) {
      view = forCaller(resilient, host.caller);
      this.views.set(host, view);
    }
    return view;
  }

  /**
   * The pipeline's client for one tool call: the host's caller, and a failure not remembered for the model's
   * repeats when the proxy refused what the upstream asked during the call because of the moment (see
   * {@link toHost}), or the host's link says so.
   */
  private callClient(call: CallInFlight): UpstreamClient {
    const { host } = call;
    return withCallContext(this.resilient as UpstreamClient, {
      ...(host.caller === undefined ? {} : { caller: host.caller }),
      rememberFailure: () => !call.momentary && host.rememberFailure?.() !== false,
    });
  }

  /** Forwards a host's notification (`notifications/roots/list_changed`...) to the upstream. */
  async notify(notification: JsonRpcRequestLike): Promise<void> {
    if (this.raw.transport) await this.raw.notification(notification as never);
  }

  /**
   * Closes the connection (a stdio child is stopped), a connection under way included; no request reconnects
   * it afterwards.
   */
  async close(): Promise<void> {
    this.respawner?.stop();
    await this.connects.abandon();
    await (this.resilient ?? this.raw).close();
  }

  describe(): string {
    return describeUpstream(this.spec);
  }

  /**
   * A server-to-client request of the upstream, routed to a host ({@link routeToHost}); a `roots/list` is
   * answered from the `roots` option when given. A refusal that depended on the moment (the proxy's, or the host
   * link's: other calls in flight, a limit, no answer in time) marks the calls it may belong to, whose failures
   * are then not remembered: the call it names, else every call in flight of the host it went to, else every
   * call in flight.
   */
  private toHost(request: JsonRpcRequestLike, signal: AbortSignal): Promise<unknown> {
    const roots = this.ownRoots;
    if (request.method === 'roots/list' && roots !== undefined) {
      return Promise.resolve({ roots: roots.map((root) => ({ ...root })) });
    }
    const inFlight = [...this.inFlight.values()];
    const route = routeToHost(request.method, inFlight, this.hosts, this.name);
    if (route.kind === 'refused') {
      if (route.error.momentary) for (const call of inFlight) call.momentary = true;
      return Promise.reject(route.error);
    }
    const { host, relatedRequestId } = route;
    const sent = host.request(stripJsonRpc(request), {
      signal,
      ...(relatedRequestId === undefined ? {} : { relatedRequestId }),
    });
    return sent.catch((error: unknown) => {
      if (isMomentary(error)) {
        const mine = inFlight.filter((f) => f.host === host);
        const named = mine.filter((f) => f.requestId === relatedRequestId);
        for (const call of named.length > 0 ? named : mine) call.momentary = true;
      }
      throw error;
    });
  }

  private async broadcast(notification: JsonRpcRequestLike): Promise<void> {
    for (const watcher of this.watchers) watcher(notification);
    await Promise.allSettled([...this.hosts].map((host) => host.notify(stripJsonRpc(notification))));
  }
}

/** A host's request in flight upstream; `momentary`: see {@link Upstream.toHost}. */
interface CallInFlight extends InFlight {
  momentary: boolean;
}

/** The method and params of a JSON-RPC message, without its envelope (`jsonrpc`, `id`). */
function stripJsonRpc(message: JsonRpcRequestLike): JsonRpcRequestLike {
  return message.params === undefined
    ? { method: message.method }
    : { method: message.method, params: message.params };
}
