/** Options of {@link Respawner}. All optional. */
export interface RespawnOptions {
  /** The wait before the first restart after a crash. Default 100 ms. */
  readonly baseMs?: number;
  /** The longest wait: the wait doubles with each crash in a row, up to this. Default 30 000 ms. */
  readonly maxMs?: number;
  /** A connection that stayed up this long ends a crash series (the next wait is `baseMs` again). Default 30 000 ms. */
  readonly stableMs?: number;
  /** Injected for tests. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export const respawnDefaults = { baseMs: 100, maxMs: 30_000, stableMs: 30_000 } as const;

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    // A pending restart does not keep the process alive on its own.
    setTimeout(resolve, ms).unref();
  });

/**
 * Restarts a stdio upstream that went away by itself, without waiting for the next request: after a crash it
 * waits (`baseMs`, doubling with each crash in a row, up to `maxMs`), then calls `connect` unless it is no longer
 * wanted (`needless()`: a request's own reconnection came first, or a breaker is open and only its probe may start
 * the server), and tries again, waiting longer, while the connection fails. {@link stop} ends it (the proxy closes the upstream on purpose).
 */
export class Respawner {
  private crashes = 0;
  private upSince: number | undefined;
  private running: Promise<void> | undefined;
  private connecting: Promise<void> | undefined;
  private stopped = false;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly connect: () => Promise<void>,
    private readonly needless: () => boolean,
    private readonly options: RespawnOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The connection being made, if any (not the wait before it): a request waits for it rather than racing it. */
  get pending(): Promise<void> | undefined {
    return this.connecting;
  }

  /** The connection is up (the first one, or one made by a request's reconnection). */
  up(): void {
    this.upSince = this.now();
  }

  /** The connection went away without the proxy closing it: restart it. */
  lost(): void {
    if (this.stopped || this.running) return;
    const stable = this.options.stableMs ?? respawnDefaults.stableMs;
    if (this.upSince !== undefined && this.now() - this.upSince >= stable) this.crashes = 0;
    this.upSince = undefined;
    this.running = this.restart().finally(() => {
      this.running = undefined;
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private async restart(): Promise<void> {
    for (;;) {
      await this.sleep(this.delay(this.crashes++));
      if (this.stopped || this.needless()) return;
      this.connecting = this.connect();
      try {
        await this.connecting;
        this.up();
        return;
      } catch {
        // Not started (or gone again at once): wait longer, then try again.
      } finally {
        this.connecting = undefined;
      }
    }
  }

  /** The wait before restart number `n + 1` of a crash series. */
  private delay(n: number): number {
    const base = this.options.baseMs ?? respawnDefaults.baseMs;
    const max = this.options.maxMs ?? respawnDefaults.maxMs;
    return Math.min(max, base * 2 ** Math.min(n, 30));
  }
}
