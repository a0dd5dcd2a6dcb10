/** How many live connections are allowed, in all and per client address. */
export interface ConnectionLimitOptions {
  readonly max: number;
  readonly perClient: number;
}

export type Admission =
  | { readonly ok: true; readonly release: () => void }
  | { readonly ok: false; readonly reason: string };

/**
 * Caps long-lived connections (SSE): at most `max` at once and `perClient` per client address. `acquire`
 * answers plain data; the caller answers 503 with the reason when refused and calls `release` (idempotent)
 * when the connection closes.
 */
export class ConnectionLimit {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly o: ConnectionLimitOptions) {}

  acquire(client: string): Admission {
    if (this.total >= this.o.max)
      return { ok: false, reason: `too many live connections (${this.o.max}, SSE_MAX_CONNECTIONS)` };
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= this.o.perClient)
      return {
        ok: false,
        reason: `too many live connections from ${client} (${this.o.perClient}, SSE_MAX_PER_CLIENT)`,
      };
    this.total++;
    this.byClient.set(client, mine + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const n = (this.byClient.get(client) ?? 1) - 1;
        if (n <= 0) this.byClient.delete(client);
        else this.byClient.set(client, n);
      },
    };
  }

  get size(): number {
    return this.total;
  }
}
