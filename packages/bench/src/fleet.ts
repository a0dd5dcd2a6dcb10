import {
  type BreakerTransitionEvent,
  createMemoryHealthStore,
  createResilience,
  type Resilience,
  type ResilienceEvent,
  type ResilienceOptions,
} from '@mcp-resilience/middleware';
import { seededRandom } from '@mcp-resilience/middleware/testing';
import { naive } from './policies.js';
import type { CallContext } from './simulate.js';
import { onVirtualTime } from './virtualTime.js';

/**
 * The fleet benchmark (issue #23): N replicas of a low-rate caller (one call every 1-3 s each, a 10 s limit per
 * call, the defaults otherwise) against one endpoint that is dead for five minutes, with and without a shared
 * health store (the in-memory store of the middleware, on virtual time, 1 ms per store operation). Each cell runs
 * `SEEDS` seeds; a seed gives the same callers' schedule with and without the store (its own random stream), so
 * the two differ only by what the store changes.
 */
export interface FleetRun {
  /** Requests that reached the endpoint while it was down, fleet-wide. */
  readonly requestsWhileDown: number;
  readonly calls: number;
  readonly successes: number;
  /** From the fleet's first trip to the last replica's breaker leaving closed (ms); undefined: some never did. */
  readonly allFailFastMs: number | undefined;
}

/** One cell: its runs, one per seed. */
export interface FleetCell {
  readonly replicas: number;
  readonly shared: boolean;
  readonly runs: readonly FleetRun[];
}

/** Seeds per cell: one run's success depends on where the probe after the recovery falls (± 3 points). */
export const SEEDS = 16;

const HEALTHY_BEFORE_MS = 10_000;
const DOWN_MS = 300_000;
const HEALTHY_AFTER_MS = 60_000;
/** Each call's limit. */
const LIMIT_MS = 10_000;

/** A caller of a run: a replica of the middleware, or the naive loop (the reference). */
interface FleetCaller {
  execute(fn: () => Promise<string>): Promise<unknown>;
  close(): Promise<void>;
}

/** One run of `replicas` callers; `options` go over the defaults of each replica (the idle-cap sweep sets one). */
export async function runFleetRun(
  replicas: number,
  shared: boolean,
  seed = 1,
  options: ResilienceOptions = {},
): Promise<FleetRun> {
  const hub = shared ? createMemoryHealthStore({ latencyMs: 1 }) : undefined;
  const firstOpen = new Map<number, number>();
  const run = await runCallers(seed, () =>
    createReplicas(replicas, hub, options, firstOpen).map((r) => ({
      execute: (fn: () => Promise<string>) => r.execute(fn, { endpoint: 'tool-server' }),
      close: () => r.close(),
    })),
  );
  const opens = [...firstOpen.values()];
  const allFailFastMs = opens.length === replicas ? Math.max(...opens) - Math.min(...opens) : undefined;
  return { ...run, allFailFastMs };
}

/**
 * The lone caller's run (N = 1) with the naive loop instead of the middleware: the same schedule, endpoint and
 * 10 s limit (the caller gets its answer at the limit; the loop stops after it), the reference for its successes.
 */
export async function runNaiveLoneCaller(seed = 1): Promise<Omit<FleetRun, 'allFailFastMs'>> {
  return runCallers(seed, () => [naiveCaller()]);
}

/** Runs `createCallers()`'s callers against the endpoint, on virtual time, and counts. */
async function runCallers(seed: number, createCallers: () => FleetCaller[]) {
  const run = await onVirtualTime(
    seed,
    HEALTHY_BEFORE_MS + DOWN_MS + HEALTHY_AFTER_MS + 120_000,
    async () => {
      const downFrom = Date.now() + HEALTHY_BEFORE_MS;
      const downUntil = downFrom + DOWN_MS;
      let requestsWhileDown = 0;
      let calls = 0;
      let successes = 0;
      const endpoint = async () => {
        const now = Date.now();
        const down = now >= downFrom && now < downUntil;
        if (down) requestsWhileDown++;
        await new Promise((resolve) => setTimeout(resolve, down ? 5 : 20));
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return 'ok';
      };
      const fleet = createCallers();
      const end = downUntil + HEALTHY_AFTER_MS;
      await Promise.all(
        fleet.map(async (caller, i) => {
          const schedule = seededRandom(seed * 7_919 + i); // this caller's own stream: the same with and without
          await sleep(schedule() * 2_000);
          while (Date.now() < end) {
            calls++;
            await caller.execute(endpoint).then(
              () => successes++,
              () => {},
            );
            await sleep(1_000 + schedule() * 2_000);
          }
        }),
      );
      await Promise.all(fleet.map((caller) => caller.close()));
      return { requestsWhileDown, calls, successes };
    },
  );
  return run.value;
}

/** The bench's naive loop with the run's limit: it answers at the limit, and the loop stops once it has passed. */
function naiveCaller(): FleetCaller {
  const loop = naive.create();
  return {
    execute(fn) {
      const controller = new AbortController();
      const limit = setTimeout(() => controller.abort(new Error('deadline')), LIMIT_MS);
      const attempts = loop.execute(fn, { signal: controller.signal } as CallContext); // it reads only the signal
      const atLimit = new Promise((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
      );
      attempts.then(
        () => clearTimeout(limit),
        () => clearTimeout(limit),
      );
      return Promise.race([attempts, atLimit]);
    },
    close: async () => {},
  };
}

/** The replicas, each recording when its breaker first opened into `firstOpen`; `hub` shares their health. */
function createReplicas(
  replicas: number,
  hub: ReturnType<typeof createMemoryHealthStore> | undefined,
  options: ResilienceOptions,
  firstOpen: Map<number, number>,
): Resilience[] {
  return Array.from({ length: replicas }, (_, i) =>
    createResilience({
      ...options,
      ...(hub ? { healthStore: hub.connect(), fleetReplicaId: `r${i}` } : {}),
      timeoutMs: LIMIT_MS,
      recorder: {
        record(event: ResilienceEvent) {
          if (event.type !== 'breaker_transition' || (event as BreakerTransitionEvent).to !== 'open') return;
          if (!firstOpen.has(i)) firstOpen.set(i, event.time);
        },
      },
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFleet(seeds = SEEDS): Promise<FleetCell[]> {
  const cells: FleetCell[] = [];
  for (const replicas of [1, 10, 50]) {
    for (const shared of [false, true]) {
      const runs: FleetRun[] = [];
      for (let seed = 1; seed <= seeds; seed++) runs.push(await runFleetRun(replicas, shared, seed));
      cells.push({ replicas, shared, runs });
    }
  }
  return cells;
}
