import type { Fault, FaultKind } from '../plan/FaultPlan.js';
import { callDraw } from '../random/callDraw.js';

export type TransportKind = 'http' | 'stdio';

/** What the picker knows about a request. `time` is in ms since the server started. */
export interface FaultRequest {
  transport: TransportKind;
  method: string;
  tool?: string;
  /** `tools/call`: the tool and its arguments as canonical JSON (the key of a fault drawn `per: 'call'`). */
  callKey?: string;
  time: number;
}

/** Kinds that only exist on the HTTP transport; on stdio they never match. */
const httpOnly = new Set<FaultKind>([
  'unauthorized',
  'forbidden',
  'rate_limit',
  'http_error',
  'reset',
  'reset_after',
  'stream_broken',
  'session_expired',
  'outage',
  'flapping',
]);

const asList = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

const defaultMethod = (fault: Fault) =>
  fault.kind === 'outage' || fault.kind === 'flapping' ? '*' : 'tools/call';

function matches(fault: Fault, request: FaultRequest): boolean {
  if (request.transport !== 'http' && httpOnly.has(fault.kind)) return false;
  const methods = asList(fault.method ?? (fault.tool ? 'tools/call' : defaultMethod(fault)));
  if (!methods.includes('*') && !methods.includes(request.method)) return false;
  if (fault.tool && !(request.tool && asList(fault.tool).includes(request.tool))) return false;
  const from = fault.from ?? 0;
  if (request.time < from || request.time >= (fault.to ?? Number.POSITIVE_INFINITY)) return false;
  if (fault.kind === 'flapping') {
    const phase = (request.time - from) % fault.period;
    return phase >= fault.period * (1 - (fault.duty ?? 0.5));
  }
  return true;
}

/**
 * Decides which fault (if any) a request gets: the first fault of the plan, in order, whose conditions match
 * and whose probability draw succeeds. Draws come from `random`, so a seeded PRNG makes runs reproducible; a
 * fault drawn `per: 'call'` draws from (seed, fault, tool and arguments) instead.
 */
export class FaultPicker {
  private readonly states: { fault: Fault; seen: number; injected: number }[];

  constructor(
    faults: readonly Fault[],
    private readonly random: () => number,
    private readonly seed = 1,
  ) {
    this.states = faults.map((fault) => ({ fault, seen: 0, injected: 0 }));
  }

  pick(request: FaultRequest): Fault | null {
    for (const [index, state] of this.states.entries()) {
      const { fault } = state;
      if (!matches(fault, request) || state.injected >= (fault.times ?? Number.POSITIVE_INFINITY)) continue;
      state.seen += 1;
      if (state.seen % (fault.every ?? 1) !== 0) continue;
      const probability = fault.probability ?? 1;
      if (probability < 1 && this.draw(fault, index, request) >= probability) continue;
      state.injected += 1;
      return fault;
    }
    return null;
  }

  /** A request's draw, or the call's (same tool and arguments, same draw) for a fault drawn `per: 'call'`. */
  private draw(fault: Fault, index: number, request: FaultRequest): number {
    if (fault.per === 'call' && request.callKey !== undefined)
      return callDraw(this.seed, index, request.callKey);
    return this.random();
  }
}
