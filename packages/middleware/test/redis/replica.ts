/**
 * One replica of a fleet, as a child process (run with tsx): a resilience instance sharing its health through
 * the Redis store, calling the parent's HTTP endpoint when the parent says so, and reporting every result and
 * every fleet event over IPC. The parent counts what reaches the endpoint on its side.
 */
import { createResilience } from '../../src/createResilience.js';
import type { ResilienceEvent } from '../../src/record/ResilienceEvent.js';
import { createRedisHealthStore } from '../../src/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`replica: ${name} is not set`);
  return value;
};
const id = env('REPLICA_ID');
const target = env('ENDPOINT_URL');
const send = (message: unknown) => process.send?.(message);

console.warn = (...args: unknown[]) => send({ warn: args.map(String).join(' ') });

const reported = new Set(['breaker_transition', 'fleet_decision', 'health_store']);
const healthStore = createRedisHealthStore({
  url: env('REDIS_URL'),
  keyPrefix: env('KEY_PREFIX'),
  // (the store's limit: a loaded machine does not cross it; a paused Redis still fails each operation within 1 s)
  operationTimeoutMs: 1_000,
  reconnectBaseMs: 50,
  reconnectMaxMs: 200,
});
const resilience = createResilience({
  healthStore,
  fleetReplicaId: id,
  fleetSyncIntervalMs: 200,
  maxAttempts: 1,
  breakerConsecutiveFailures: 3,
  // Long by default (600 s, 300 s): no time a loaded machine takes crosses them; a test that needs a break to end
  // or a probe to time out sets its own. The first call waits for the fleet's first read up to 5 s.
  breakerBreakMs: Number(process.env.BREAK_MS ?? 600_000),
  breakerMaxBreakMs: Number(process.env.MAX_BREAK_MS ?? process.env.BREAK_MS ?? 600_000),
  breakerJitter: 0,
  breakerWait: false,
  breakerProbeTimeoutMs: Number(process.env.PROBE_TIMEOUT_MS ?? 300_000),
  // the fleet's probe lease (default: the probe's time limit + 1 s)
  ...(process.env.PROBE_LEASE_MS ? { fleetProbeLeaseMs: Number(process.env.PROBE_LEASE_MS) } : {}),
  fleetFirstReadWaitMs: 5_000,
  adaptiveBackoff: false,
  recorder: {
    record(event: ResilienceEvent) {
      if (!reported.has(event.type)) return;
      const { type } = event;
      const detail =
        event.type === 'breaker_transition'
          ? { to: event.to, reason: event.reason }
          : event.type === 'fleet_decision'
            ? { decision: event.decision }
            : event.type === 'health_store'
              ? { kind: event.kind }
              : {};
      send({ event: { type, time: Date.now(), ...detail } });
    },
  },
});

async function request(): Promise<string> {
  const response = await fetch(target, { headers: { 'x-replica': id } });
  const body = await response.text();
  if (response.ok) return body;
  const retryAfter = response.headers.get('retry-after');
  throw Object.assign(new Error(`HTTP ${response.status}`), {
    status: response.status,
    code: response.status,
    headers: retryAfter ? { 'retry-after': retryAfter } : {},
  });
}

interface CallResult {
  readonly ok: boolean;
  readonly ms: number;
  readonly reason?: string;
  readonly source?: string;
}

async function call(timeoutMs?: number): Promise<CallResult> {
  const start = performance.now();
  try {
    await resilience.execute(request, { endpoint: 'tools', ...(timeoutMs ? { timeoutMs } : {}) });
    return { ok: true, ms: performance.now() - start };
  } catch (error) {
    const e = error as { reason?: string; classification?: { source?: string } };
    return {
      ok: false,
      ms: performance.now() - start,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.classification?.source ? { source: e.classification.source } : {}),
    };
  }
}

let looping = false;
async function loop(everyMs: number): Promise<void> {
  looping = true;
  while (looping) {
    send({ looped: await call() });
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

process.on('message', (m: { op: string; id?: number; timeoutMs?: number; everyMs?: number }) => {
  if (m.op === 'call') void call(m.timeoutMs).then((result) => send({ reply: m.id, result }));
  else if (m.op === 'loop') void loop(m.everyMs ?? 50);
  else if (m.op === 'stop') looping = false;
  else if (m.op === 'exit') {
    looping = false;
    void resilience.close().finally(() => process.exit(0));
  }
});
// joined the fleet: connected to the store (a process whose first call comes before that waits for it at most
// fleetFirstReadWaitMs)
void healthStore
  .read('replica-started')
  .catch(() => {})
  .then(() => send({ ready: true }));
