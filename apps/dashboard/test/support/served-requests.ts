import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request the server dispatched to the dashboard's listener. */
export interface ServedRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Resolves when the server side of the response closes (after the listener's own `close` handlers ran). */
  readonly closed: Promise<void>;
  /** Resolves when the listener has finished with the request (answered, refused or dropped; rejects if it threw). */
  readonly handled: Promise<void>;
}

/**
 * The requests a test server dispatched, to wait on instead of polling or sleeping: `dispatched(n)` resolves
 * once the listener has been called for `n` requests (their headers were read, its synchronous part ran), and
 * `handled(n)` once it has finished with `n` of them.
 */
export class ServedRequests {
  readonly all: ServedRequest[] = [];
  private finished = 0;
  private readonly waiters = new Set<() => void>();

  /** Called by the test server right after the listener was called for `req`. */
  record(req: IncomingMessage, res: ServerResponse, done: Promise<void>): void {
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    // a rejection stays unhandled, as without this record (the test run reports it)
    const handled = done.then(
      () => this.finish(),
      (error: unknown) => {
        this.finish();
        throw error;
      },
    );
    this.all.push({ req, res, closed, handled });
    this.notify();
  }

  /** Resolves once `n` requests were dispatched to the listener. */
  dispatched(n: number): Promise<ServedRequest[]> {
    return this.until(() => this.all.length >= n).then(() => this.all.slice(0, n));
  }

  /** Resolves once the listener has finished with `n` requests. */
  handled(n: number): Promise<void> {
    return this.until(() => this.finished >= n);
  }

  private finish(): void {
    this.finished++;
    this.notify();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private until(ok: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!ok()) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }
}
