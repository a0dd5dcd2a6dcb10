import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import { Upstream } from '../upstream/Upstream.js';
import type { GatewayConfig, GatewayServer } from './GatewayConfig.js';

/**
 * What a shared upstream on 2026-07-28 is told the proxy can answer: every input method, so that its
 * `input_required` rounds are taken on and sent to the host whose call is in flight (which refuses what it did
 * not declare) instead of being refused by the upstream (-32021) for every host.
 */
const INPUT_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} } as const;

/**
 * What a shared 2025-era upstream is told: the requests a server sends during a call, each then routed to the
 * host whose call it is (a 2025-11-25 session, or a 2026-07-28 host as an `input_required` round), refused when
 * that host did not declare it. `roots` only for a server with `roots` in its entry, which the gateway answers
 * itself: a server asks it right after connecting (`server-filesystem`, `server-everything`), when no host's call
 * is there to answer, and the roots of a shared upstream are the operator's, no one host's.
 */
const CALL_CAPABILITIES = { elicitation: {}, sampling: {} } as const;

/**
 * The gateway's upstreams, one shared connection per server of the config, opened on demand (and at start):
 * a server is opened after its fallbacks, which it then routes to. A failed open is retried by the next session.
 */
export class UpstreamPool {
  private readonly opening = new Map<string, Promise<Upstream>>();
  private readonly servers: ReadonlyMap<string, GatewayServer>;

  constructor(
    private readonly config: GatewayConfig,
    private readonly defaults: McpResilienceOptions,
  ) {
    this.servers = new Map(config.servers.map((s) => [s.name, s]));
  }

  has(name: string): boolean {
    return this.servers.has(name);
  }

  /** Starts opening every server (failures are left for the first session of each to see). */
  warmUp(): void {
    for (const name of this.servers.keys()) this.get(name).catch(() => {});
  }

  /** The connected upstream of `name`. */
  get(name: string): Promise<Upstream> {
    const existing = this.opening.get(name);
    if (existing) return existing;
    const server = this.servers.get(name);
    if (!server) return Promise.reject(new Error(`no server "${name}" in ${this.config.file}`));
    const opening = this.open(server);
    this.opening.set(name, opening);
    opening.catch(() => {
      if (this.opening.get(name) === opening) this.opening.delete(name);
    });
    return opening;
  }

  async close(): Promise<void> {
    const all = [...this.opening.values()];
    this.opening.clear();
    await Promise.allSettled(all.map(async (u) => (await u).close()));
  }

  private async open(server: GatewayServer): Promise<Upstream> {
    const fallbacks = [];
    for (const name of server.fallbacks) {
      const upstream = await this.get(name).catch(() => undefined);
      if (upstream) fallbacks.push({ client: upstream.client, server: upstream.name });
    }
    const resilience: McpResilienceOptions = {
      ...this.defaults,
      ...server.resilience,
      server: server.name,
      ...(fallbacks.length > 0 ? { fallbacks } : {}),
    };
    try {
      return await Upstream.open({
        spec: server.spec,
        resilience,
        capabilities: server.roots ? { ...CALL_CAPABILITIES, roots: {} } : CALL_CAPABILITIES,
        modernCapabilities: INPUT_CAPABILITIES,
        ...(server.roots ? { roots: server.roots } : {}),
      });
    } catch (error) {
      if (error instanceof TypeError) {
        throw new TypeError(
          `${this.config.file}: server "${server.name}", key "resilience": ${error.message}`,
        );
      }
      throw error;
    }
  }
}
