import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { FaultPicker, type TransportKind } from '../faults/FaultPicker.js';
import { type GroundTruthEntry, GroundTruthLog } from '../log/GroundTruthLog.js';
import type { Fault, FaultPlan } from '../plan/FaultPlan.js';
import { canonicalJson } from '../random/callDraw.js';
import { mulberry32 } from '../random/mulberry32.js';

/** What decides the faults: shared by the chaos servers and the chaos proxy. */
export interface FaultOptions {
  /** Default: no faults. */
  plan?: FaultPlan;
  /** PRNG seed for the probability draws. Default 1. */
  seed?: number;
  /** Append every settled ground-truth entry to this JSON Lines file. */
  logFile?: string;
  /** Milliseconds from any origin (default `performance.now`); time windows are measured from the first reading. */
  clock?: () => number;
}

/** The fault decided for one request, and its log entry. */
export interface Admission {
  entry: GroundTruthEntry;
  fault: Fault | null;
  /** `reset_after`: destroys the connection once the request has executed. */
  onReset?: () => void;
}

export interface Origin {
  transport: TransportKind;
  sessionId?: string;
}

/**
 * The fault-deciding state one chaos server (or proxy) shares across its connections: plan, PRNG, clock and
 * ground-truth log.
 */
export class FaultCore {
  readonly log: GroundTruthLog;
  private readonly random: () => number;
  private readonly seed: number;
  private readonly clock: () => number;
  private readonly startedAt: number;
  private plan: FaultPlan;
  private picker: FaultPicker;

  constructor(options: FaultOptions) {
    this.log = new GroundTruthLog(options.logFile);
    this.seed = options.seed ?? 1;
    this.random = mulberry32(this.seed);
    this.clock = options.clock ?? (() => performance.now());
    this.startedAt = this.clock();
    this.plan = options.plan ?? { faults: [] };
    this.picker = new FaultPicker(this.plan.faults, this.random, this.seed);
  }

  get unknownSessionStatus(): 404 | 400 {
    return this.plan.unknownSession ?? 404;
  }

  /** Replaces the plan. `every`/`times` counters restart; the PRNG and the clock go on. */
  setPlan(plan: FaultPlan): void {
    this.plan = plan;
    this.picker = new FaultPicker(plan.faults, this.random, this.seed);
  }

  /** Decides one fault for the requests that arrived together (decided by the first one) and logs each. */
  admit(requests: readonly JSONRPCRequest[], origin: Origin): Admission[] {
    const [first] = requests;
    const fault = first
      ? this.picker.pick({ ...origin, ...describe(first), ...callKey(first), time: this.elapsed() })
      : null;
    return requests.map((request) => ({
      entry: this.record(request, origin, fault?.name ?? fault?.kind ?? null),
      fault,
    }));
  }

  /** Logs a cancellation the server received for `requestId`. */
  cancelled(
    requestId: JSONRPCRequest['id'],
    origin: Origin,
    via: 'notification' | 'stream_closed',
    reason?: string,
  ): void {
    this.log.cancelled({
      time: this.elapsed(),
      ...origin,
      requestId,
      via,
      ...(reason === undefined ? {} : { reason: reason.slice(0, 500) }),
    });
  }

  /** Logs requests answered without reaching a session (unknown or missing session id). */
  reject(requests: readonly JSONRPCRequest[], origin: Origin): void {
    for (const request of requests) this.log.settle(this.record(request, origin, null));
  }

  private elapsed(): number {
    return Math.round(this.clock() - this.startedAt);
  }

  private record(request: JSONRPCRequest, origin: Origin, fault: string | null): GroundTruthEntry {
    return this.log.record({
      time: this.elapsed(),
      ...origin,
      ...describe(request),
      requestId: request.id,
      fault,
    });
  }
}

/** A `tools/call`'s tool and arguments, as the key of the faults drawn per call. */
function callKey(request: JSONRPCRequest): { callKey?: string } {
  if (request.method !== 'tools/call') return {};
  return { callKey: canonicalJson([request.params?.name ?? null, request.params?.arguments ?? {}]) };
}

function describe(request: JSONRPCRequest): { method: string; tool?: string; traceparent?: string } {
  const name = request.params?.name;
  const traceparent = (request.params?._meta as Record<string, unknown> | undefined)?.traceparent;
  return {
    method: request.method,
    ...(request.method === 'tools/call' && typeof name === 'string' ? { tool: name } : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  };
}
