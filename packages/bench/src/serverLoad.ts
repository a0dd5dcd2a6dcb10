/**
 * A server of finite capacity: it can do `requestsPerSecond` units of work in any 1 s window. A request it admits
 * costs one unit and is answered normally; beyond capacity a request is rejected with a 503, and the rejection
 * itself costs `rejectCost` units (accepting the connection, TLS, parsing, routing) and `rejectLatencyMs` of the
 * client's time. So the more requests are rejected, the fewer can be served: offered load L above capacity C
 * leaves (C − rejectCost·L) / (1 − rejectCost) requests per second served, zero at L = C / rejectCost. That is
 * what makes a retry storm self-sustaining (a metastable failure): retries of rejected requests keep the offered
 * load above capacity after the spike that started it has ended.
 */
export interface Capacity {
  /** Units of work per second; an admitted request costs 1. */
  readonly requestsPerSecond: number;
  /** Units of work a rejected request costs, in [0, 1). */
  readonly rejectCost: number;
  /** How long the client waits for a rejection. */
  readonly rejectLatencyMs: number;
}

/** The sliding window over which capacity is counted. */
export const LOAD_WINDOW_MS = 1_000;

export interface ServerLoad {
  /** A request arrives at `t` (ms): admitted (true) or rejected (false); either way it spends capacity. */
  admit(t: number): boolean;
  /** Whether a request arriving at `t` would be admitted, without sending it. */
  wouldAdmit(t: number): boolean;
  /** The earliest time ≥ `t` at which a request would be admitted, if nothing else arrives before. */
  nextAdmission(t: number): number;
  /** Requests admitted and rejected so far. */
  readonly admitted: number;
  readonly rejected: number;
}

export function validateCapacity(capacity: Capacity): void {
  if (!(capacity.requestsPerSecond >= 1) || !Number.isFinite(capacity.requestsPerSecond))
    throw new Error(
      `capacity.requestsPerSecond must be a finite number ≥ 1, got ${capacity.requestsPerSecond}`,
    );
  if (!(capacity.rejectCost >= 0 && capacity.rejectCost < 1))
    throw new Error(`capacity.rejectCost must be in [0, 1), got ${capacity.rejectCost}`);
  if (!(capacity.rejectLatencyMs >= 0) || !Number.isFinite(capacity.rejectLatencyMs))
    throw new Error(`capacity.rejectLatencyMs must be a finite number ≥ 0, got ${capacity.rejectLatencyMs}`);
}

/** A fresh, empty server: one per run (the load is shared by every call of the run). */
export function createServerLoad(capacity: Capacity): ServerLoad {
  validateCapacity(capacity);
  // Work spent, in arrival order: times are non-decreasing on virtual time.
  const times: number[] = [];
  const costs: number[] = [];
  let head = 0;
  let spent = 0;
  let admitted = 0;
  let rejected = 0;
  const expire = (t: number) => {
    while (head < times.length && times[head]! <= t - LOAD_WINDOW_MS) {
      spent -= costs[head]!;
      head++;
    }
    if (head > 4096 && head * 2 > times.length) {
      times.splice(0, head);
      costs.splice(0, head);
      head = 0;
    }
  };
  // Sums drift with floating point; a tiny tolerance keeps "exactly full" full.
  const fits = () => spent + 1 <= capacity.requestsPerSecond + 1e-9;
  return {
    admit(t) {
      expire(t);
      const ok = fits();
      const cost = ok ? 1 : capacity.rejectCost;
      times.push(t);
      costs.push(cost);
      spent += cost;
      if (ok) admitted++;
      else rejected++;
      return ok;
    },
    wouldAdmit(t) {
      expire(t);
      return fits();
    },
    nextAdmission(t) {
      expire(t);
      let s = spent;
      for (let i = head; i < times.length; i++) {
        if (s + 1 <= capacity.requestsPerSecond + 1e-9)
          return i === head ? t : times[i - 1]! + LOAD_WINDOW_MS;
        s -= costs[i]!;
      }
      return times.length > head ? times[times.length - 1]! + LOAD_WINDOW_MS : t;
    },
    get admitted() {
      return admitted;
    },
    get rejected() {
      return rejected;
    },
  };
}
