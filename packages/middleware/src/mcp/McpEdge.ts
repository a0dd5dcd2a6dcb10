import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Clock } from '../Clock.js';
import type { ClassificationRule } from '../classify/ClassificationRule.js';
import { createResilience, type Resilience } from '../createResilience.js';
import { AttemptFacts } from './AttemptFacts.js';
import { type IdempotencyPolicy, idempotencyPolicy } from './idempotency.js';
import type { McpClientLike, TransportLike } from './McpClientLike.js';
import { type McpResilienceOptions, mcpDefaults, splitMcpOptions } from './McpResilienceOptions.js';
import type { ObservedFetch } from './observeFetch.js';
import { Reconnector } from './Reconnector.js';
import { protocolVersionOf, type RequestArgs, requestArgs } from './sdkLine.js';
import { fallbacks, type McpStageCall } from './stages/fallbacks.js';
import { negativeCache } from './stages/negativeCache.js';
import { resultOn } from './stages/resultOn.js';
import type { Stage } from './stages/Stage.js';
import { ToolAnnotationCache } from './ToolAnnotationCache.js';

type RequestFn = (...args: unknown[]) => Promise<unknown>;
type AnyRequest = { method: string; params?: Record<string, unknown> };
/** Makes a fallback client resilient (`withResilience`). */
type Wrap = (client: Client, options: McpResilienceOptions) => Client;

/** The client's transport, typed as what the edge uses of it. */
export const transportOf = (client: McpClientLike) => client.transport as TransportLike | undefined;

/**
 * What every call of one `withResilience` client shares: the pipeline, the SDK's own `request`, the tools'
 * annotations and the idempotency policy, the MCP rules, the reconnector and the agent-loop stages.
 */
export class McpEdge {
  readonly resilience: Resilience;
  readonly clock: Clock;
  readonly originalRequest: RequestFn;
  readonly fetch: ObservedFetch | undefined;
  readonly breakerScope: 'server' | 'tool';
  readonly annotations = new ToolAnnotationCache();
  readonly policy: IdempotencyPolicy;
  readonly facts = new AttemptFacts();
  readonly rules: readonly ClassificationRule[];
  readonly reconnector: Reconnector | undefined;
  /** Outermost first: the negative cache, results for outcomes, fallbacks. */
  readonly stages: readonly Stage<McpStageCall>[];
  private readonly server: string | undefined;
  /** v1 keeps the version `initialize` answered only on its HTTP transport: remembered here for stdio. */
  private initializedVersion: string | undefined;

  constructor(
    readonly client: McpClientLike,
    options: McpResilienceOptions,
    /** The resilient client (the Proxy), which lists the tools. */
    private readonly self: () => McpClientLike,
    wrap: Wrap,
  ) {
    const { mcp, core } = splitMcpOptions(options);
    this.resilience = mcp.resilience ?? createResilience({ ...core, rules: [] });
    this.clock = this.resilience.options.clock;
    this.originalRequest = client.request as unknown as RequestFn;
    this.fetch = mcp.fetch;
    this.server = mcp.server;
    this.breakerScope = mcp.breakerScope ?? mcpDefaults.breakerScope;
    const idempotency = mcp.idempotency ?? mcpDefaults.idempotency;
    this.policy = idempotencyPolicy(idempotency, mcp.toolIdempotency, this.annotations);
    this.rules = [...(core.rules ?? []), ...this.facts.rules];
    // A fallback shares the pipeline and the per-tool choices (breakerScope, idempotency, rules); `reconnect` and
    // `fetch` are this server's transport's: a fallback that needs them is passed already wrapped.
    const fallbackOptions = (server: string): McpResilienceOptions => ({
      resilience: this.resilience,
      server,
      breakerScope: this.breakerScope,
      idempotency,
      ...(mcp.toolIdempotency ? { toolIdempotency: mcp.toolIdempotency } : {}),
      ...(core.rules ? { rules: core.rules } : {}),
      negativeCacheTtlMs: 0,
    });
    const targets = mcp.fallbacks ?? [];
    this.stages = [
      negativeCache(mcp, this.resilience),
      resultOn(mcp),
      ...(targets.length > 0
        ? [fallbacks(targets, this.resilience, (target, server) => wrap(target, fallbackOptions(server)))]
        : []),
    ];
    this.reconnector = mcp.reconnect
      ? new Reconnector(client, mcp.reconnect, (transport) => this.connecting(transport))
      : undefined;
    this.watch(transportOf(client));
  }

  /** The logical server name: the option, else the name the server gave in `initialize`, else `'mcp'`. */
  serverName(): string {
    return this.server ?? this.client.getServerVersion()?.name ?? 'mcp';
  }

  /** The negotiated protocol version, on either SDK line. */
  protocolVersion(): string | undefined {
    return protocolVersionOf(this.client, transportOf(this.client), this.initializedVersion);
  }

  /** A new transport is about to be connected: its tools are listed again and its notifications watched. */
  connecting(transport: TransportLike): void {
    this.watch(transport);
    this.annotations.markStale();
  }

  /** Lists the tools (all pages) when their annotations are unknown or stale, once at a time. */
  refreshTools(signal: AbortSignal | undefined): Promise<void> {
    const listPage = (cursor: string | undefined) =>
      this.self().listTools(cursor === undefined ? undefined : { cursor }, signal ? { signal } : {});
    return this.annotations.refresh(listPage, () => this.clock.now());
  }

  /** A request the pipeline does not wrap (`initialize`, notifications' methods): sent as it came. */
  async sendUnwrapped(self: unknown, request: AnyRequest, args: RequestArgs): Promise<unknown> {
    const result = await this.originalRequest.call(self, request, ...requestArgs(args, args.options ?? {}));
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (request.method === 'initialize' && typeof version === 'string') this.initializedVersion = version;
    return result;
  }

  private watch(transport: TransportLike | undefined): void {
    this.annotations.watch(transport, () => {
      for (const stage of this.stages) stage.toolsChanged?.();
    });
  }
}
