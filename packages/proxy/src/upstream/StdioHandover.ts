import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ChildTransport } from '../transport/ChildTransport.js';

/**
 * The child of a stdio upstream, kept across the revision fallback of one {@link Upstream.open}: the 2025-11-25
 * opening's transport ({@link watch}) keeps its child when the upstream refuses `initialize` with -32022 (it
 * speaks only 2026-07-28), and the 2026-07-28 client's first connection {@link take}s that child, so one open
 * starts one process. A child that exited meanwhile is not handed out (a new one is started), and one that
 * nobody took is stopped by {@link discard}.
 */
export class StdioHandover {
  private kept: StdioClientTransport | undefined;

  /** The transport of a 2025-11-25 opening over `child` (not started yet). */
  watch(child: StdioClientTransport): ChildTransport {
    return new ChildTransport(child, {
      onRefusedOpening: (running) => {
        void this.discard();
        this.kept = running;
      },
    });
  }

  /** The kept child, running, as a transport for the next client (once); `undefined` when there is none. */
  take(): ChildTransport | undefined {
    const child = this.kept;
    this.kept = undefined;
    if (child === undefined || child.pid === null) return undefined;
    return new ChildTransport(child, { started: true });
  }

  /** Stops a kept child nobody took. */
  async discard(): Promise<void> {
    const child = this.kept;
    this.kept = undefined;
    await child?.close();
  }
}
