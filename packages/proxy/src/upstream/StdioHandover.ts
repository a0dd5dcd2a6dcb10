import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ChildTransport } from '../transport/ChildTransport.js';
import { HeldMessages, type HeldMessagesOptions } from './HeldMessages.js';

/**
 * The child of a stdio upstream, kept across the revision fallback of one {@link Upstream.open}: the 2025-11-25
 * opening's transport ({@link watch}) keeps its child when the upstream refuses `initialize` with -32022 (it
 * speaks only 2026-07-28), and the 2026-07-28 client's first connection {@link take}s that child, so one open
 * starts one process. What the child writes from its refusal until that client's transport starts is held
 * ({@link HeldMessages}, bounded) and delivered to it then, in order. A child that exited meanwhile is not
 * handed out (a new one is started), and one that nobody took is stopped by {@link discard}.
 */
export class StdioHandover {
  private kept: { child: StdioClientTransport; held: HeldMessages } | undefined;

  /** `held`: the bounds of what is held and the server the stderr line names (see {@link HeldMessages}). */
  constructor(private readonly held: HeldMessagesOptions) {}

  /** The transport of a 2025-11-25 opening over `child` (not started yet). */
  watch(child: StdioClientTransport): ChildTransport {
    const held = new HeldMessages(this.held);
    return new ChildTransport(child, {
      held,
      onRefusedOpening: (running) => {
        void this.discard();
        this.kept = { child: running, held };
      },
    });
  }

  /** The kept child, running, as a transport for the next client (once); `undefined` when there is none. */
  take(): ChildTransport | undefined {
    const kept = this.kept;
    this.kept = undefined;
    if (kept === undefined || kept.child.pid === null) return undefined;
    return new ChildTransport(kept.child, { started: true, held: kept.held });
  }

  /** Stops a kept child nobody took. */
  async discard(): Promise<void> {
    const kept = this.kept;
    this.kept = undefined;
    await kept?.child.close();
  }
}
