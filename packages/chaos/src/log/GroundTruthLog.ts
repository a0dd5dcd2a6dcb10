import { appendFileSync } from 'node:fs';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { TransportKind } from '../faults/FaultPicker.js';

/** What the server did with one JSON-RPC request: the ground truth that tests compare a client's view with. */
export interface GroundTruthEntry {
  /** 1, 2, 3, ... in arrival order, across sessions. */
  seq: number;
  /** ms since the server started. */
  time: number;
  transport: TransportKind;
  sessionId?: string;
  method: string;
  /** `params.name` of a `tools/call`. */
  tool?: string;
  requestId: RequestId;
  /** The W3C trace context the client sent in `params._meta`, when it sent one. */
  traceparent?: string;
  /** The injected fault's `name` (default: its kind), or null when none was injected. */
  fault: string | null;
  /**
   * `tools/call`: the tool's handler ran (its side effects happened). Other methods: the request reached the
   * MCP server.
   */
  executed: boolean;
  /**
   * Cancellation entries only (`method: 'notifications/cancelled'`, `requestId` = the cancelled request's id): how
   * the client cancelled it, with `notifications/cancelled` (`notification`), or, on a 2026-07-28 Streamable HTTP
   * exchange, by closing the request's stream before its response (`stream_closed`).
   */
  via?: 'notification' | 'stream_closed';
  /** Cancellation entries: the `reason` the client gave. */
  reason?: string;
}

/** The method of the entries that record a cancellation the server received. */
export const CANCELLED_METHOD = 'notifications/cancelled';

/**
 * The in-memory ground-truth log, optionally mirrored to a JSON Lines file. An entry is written to the file once
 * it is settled (answered, failed, or given up on), so every line is final.
 */
export class GroundTruthLog {
  readonly entries: GroundTruthEntry[] = [];
  private readonly unsettled = new Set<GroundTruthEntry>();

  constructor(private readonly file?: string) {}

  /** Records a cancellation the server received (settled at once: it is final). */
  cancelled(
    fields: Pick<GroundTruthEntry, 'time' | 'transport' | 'sessionId' | 'requestId' | 'via' | 'reason'>,
  ): GroundTruthEntry {
    const entry = this.record({ ...fields, method: CANCELLED_METHOD, fault: null });
    this.settle(entry);
    return entry;
  }

  record(fields: Omit<GroundTruthEntry, 'seq' | 'executed'>): GroundTruthEntry {
    const entry = { seq: this.entries.length + 1, ...fields, executed: false };
    this.entries.push(entry);
    this.unsettled.add(entry);
    return entry;
  }

  /** The entry is final: append it to the file (once). */
  settle(entry: GroundTruthEntry): void {
    if (!this.unsettled.delete(entry)) return;
    if (this.file) appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  /** Settles every entry still open (at shutdown or crash). */
  flush(): void {
    for (const entry of [...this.unsettled]) this.settle(entry);
  }
}
