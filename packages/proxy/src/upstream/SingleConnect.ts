import type { McpClientLike, TransportLike } from '@mcp-resilience/middleware/mcp';

/**
 * One connection at a time on a client: a `connect` while another is under way joins it (resolves or rejects
 * with it) and its own transport is never started. A stdio upstream has two sources of reconnection, the
 * respawner after a crash and the retried call's reconnection, and the SDK v2 client has no `transport` until
 * its `server/discover` is answered, so neither sees the other's connection under way: without this, both would
 * start a child, and the one the client did not keep would run on, holding the proxy open after its host left.
 */
export class SingleConnect {
  private pending: { transport: TransportLike; done: Promise<void> } | undefined;

  constructor(client: McpClientLike) {
    const connect = client.connect;
    const gate = this;
    client.connect = function (this: unknown, transport: TransportLike, options?: unknown) {
      if (gate.pending) return gate.pending.done;
      const done: Promise<void> = connect.call(this ?? client, transport, options).finally(() => {
        if (gate.pending?.done === done) gate.pending = undefined;
      });
      gate.pending = { transport, done };
      return done;
    };
  }

  /** Ends a connection under way (its transport closed, so its child stops) and waits until it has settled. */
  async abandon(): Promise<void> {
    const pending = this.pending;
    if (pending === undefined) return;
    await pending.transport.close().catch(() => {});
    await pending.done.catch(() => {});
  }
}
