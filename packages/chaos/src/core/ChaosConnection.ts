import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { GroundTruthLog } from '../log/GroundTruthLog.js';
import type { Admission } from './FaultCore.js';
import { localOutcome, type Outcome } from './outcomes.js';

export interface ChaosConnectionOptions {
  log: GroundTruthLog;
  /** Decides the fault for an incoming request and logs it. */
  admit(request: JSONRPCRequest): Admission;
  /** A `crash` fault arrived (stdio). The log is already flushed. */
  onCrash?(exitCode: number): void;
  /** The client sent `notifications/cancelled` for this request. */
  onCancelled?(requestId: RequestId, reason: string | undefined): void;
}

/**
 * A transport decorator between a real transport and the MCP server: it applies the faults that live at the
 * JSON-RPC level (`invalid_params`, `tool_error`, `hang`, `reset_after`, `crash`) and keeps the ground-truth
 * log's `executed` flags and settlement up to date.
 */
export class ChaosConnection implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly open = new Map<RequestId, Admission>();
  /** Requests handed to the server (the others are held by a fault, or answered in its place). */
  private readonly delivered = new Set<RequestId>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly inner: Transport,
    private readonly options: ChaosConnectionOptions,
  ) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      for (const timer of this.timers) clearTimeout(timer);
      for (const { entry } of this.open.values()) options.log.settle(entry);
      this.open.clear();
      this.delivered.clear();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The tool handler of this request started. */
  markExecuted(requestId: RequestId): void {
    const admission = this.open.get(requestId);
    if (admission) admission.entry.executed = true;
  }

  /** A message from the client; also the entry point for requests the HTTP layer handles without the transport. */
  receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (!isJSONRPCRequest(message)) {
      if ('method' in message && message.method === 'notifications/cancelled') {
        const { requestId, reason } = (message.params ?? {}) as { requestId?: unknown; reason?: unknown };
        if (typeof requestId === 'string' || typeof requestId === 'number') {
          // A request the server has (not one a `hang` delay still holds) is not answered once cancelled: its entry
          // is final now, then the cancellation is logged.
          if (this.delivered.has(requestId)) this.forget(requestId);
          this.options.onCancelled?.(requestId, typeof reason === 'string' ? reason : undefined);
        }
      }
      this.onmessage?.(message, extra);
      return;
    }
    const admission = this.options.admit(message);
    this.open.set(message.id, admission);
    const { fault } = admission;
    const outcome = localOutcome(fault, message);
    if (outcome) {
      this.answer(message, outcome);
      return;
    }
    switch (fault?.kind) {
      case 'hang':
        // Never answered: the entry is final now. With a delay: delivered late, answered normally.
        if (fault.delay === undefined) this.forget(message.id);
        else this.timers.add(setTimeout(() => this.deliver(message, extra), fault.delay));
        break;
      case 'crash':
        this.options.log.flush();
        this.options.onCrash?.(fault.exitCode ?? 1);
        break;
      default:
        this.deliver(message, extra);
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const requestId = isResponse ? message.id : options?.relatedRequestId;
    if (requestId === undefined) return this.inner.send(message, options);
    const admission = this.open.get(requestId);
    if (isResponse) this.forget(requestId);
    if (admission?.fault?.kind === 'reset_after' || admission?.fault?.kind === 'stream_broken') {
      // Nothing about this request reaches the client: the connection dies once it has executed.
      if (isResponse) admission.onReset?.();
      return;
    }
    await this.inner.send(message, options);
  }

  private deliver(message: JSONRPCRequest, extra?: MessageExtraInfo): void {
    const admission = this.open.get(message.id);
    if (admission && message.method !== 'tools/call') admission.entry.executed = true;
    if (admission) this.delivered.add(message.id);
    this.onmessage?.(message, extra);
  }

  private answer(request: JSONRPCRequest, outcome: Outcome): void {
    this.send({ jsonrpc: '2.0', id: request.id, ...outcome }).catch((error: Error) => this.onerror?.(error));
  }

  /** The request's entry is final. */
  private forget(requestId: RequestId): void {
    const admission = this.open.get(requestId);
    if (!admission) return;
    this.open.delete(requestId);
    this.delivered.delete(requestId);
    this.options.log.settle(admission.entry);
  }
}
