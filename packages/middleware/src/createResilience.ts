import { DeadlineWatch } from './attempt/DeadlineWatch.js';
import { Call, type Pipeline } from './call/Call.js';
import type { AttemptContext, CallOptions } from './call/CallOptions.js';
import { validateCallOptions } from './call/validateCallOptions.js';
import type { BreakerSnapshot } from './decide/BreakerState.js';
import { createExperiment } from './experiment/createExperiment.js';
import { type ExperimentOptions, hasExperiment } from './experiment/ExperimentOptions.js';
import type { Endpoint } from './health/Endpoint.js';
import { EndpointRegistry } from './health/EndpointRegistry.js';
import { FleetSync } from './health/fleet/FleetSync.js';
import { isPlainObject } from './options/readOptions.js';
import {
  type FlatResilienceOptions,
  type ResilienceOptions,
  type ResolvedOptions,
  readCoreOptions,
  resolveOptions,
} from './options.js';
import { callAttributes } from './record/callAttributes.js';
import { noopRecorder } from './record/noopRecorder.js';
import type { Recorder } from './record/Recorder.js';
import type { CallRef, ResilienceEvent } from './record/ResilienceEvent.js';

export interface Resilience {
  /**
   * Runs `fn` with classification, retries, the endpoint's retry budget and circuit breaker. Resolves with
   * `fn`'s value; rejects with a `ResilienceError` carrying the last classification, the attempts made and
   * the original error as `cause`.
   */
  execute<T>(fn: (context: AttemptContext) => T | Promise<T>, options?: CallOptions): Promise<T>;
  /** A snapshot of every tracked endpoint's breaker. */
  breakers(): BreakerSnapshot[];
  /** The resolved options, defaults included. */
  readonly options: Readonly<ResolvedOptions>;
  /** Stops sharing health (option `healthStore`) and closes that store. Calls keep working on local health. */
  close(): Promise<void>;
}

let nextCallId = 1;
const noAttributes: Readonly<Record<string, string>> = Object.freeze({});
const noOptions: CallOptions = Object.freeze({});

/**
 * Creates a resilience pipeline: each call is a `Call` (gate → attempt → classify → decide → record) over the
 * per-endpoint health (breaker and its gate, budget, history) kept in `health/`. With `variants`, one pipeline
 * per variant (`experiment/`).
 */
export function createResilience(options?: ResilienceOptions & ExperimentOptions): Resilience {
  const read = readCoreOptions(options);
  if (hasExperiment(read)) return createExperiment(withVariantsRead(read), createPipeline);
  return createPipeline(read);
}

/** The experiment's variants read as options of their own (`experiment.variants.<name>.retry.maxAttempts`). */
function withVariantsRead(options: FlatResilienceOptions & ExperimentOptions) {
  const { variants } = options;
  if (!isPlainObject(variants)) return options;
  const read: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(variants)) {
    read[name] = isPlainObject(v) ? readCoreOptions(v, `experiment.variants.${name}.`) : v;
  }
  return { ...options, variants: read as ExperimentOptions['variants'] };
}

/** One pipeline over read options (`readCoreOptions`). */
function createPipeline(options: FlatResilienceOptions): Resilience {
  const o = resolveOptions(options);
  const { clock } = o;
  const emit = safeRecorder(o.recorder);
  let fleet: FleetSync | undefined;
  const registry = new EndpointRegistry(
    o,
    clock,
    (endpoint, t) => {
      emit?.({
        type: 'breaker_transition',
        endpoint: endpoint.key,
        attributes: endpoint.attributes,
        ...t,
      });
      fleet?.onTransition(endpoint, t);
    },
    (endpoint) => fleet?.attach(endpoint),
  );
  if (o.healthStore) {
    fleet = new FleetSync(
      o.healthStore,
      {
        replicaId: o.fleetReplicaId ?? randomId(clock),
        syncIntervalMs: o.fleetSyncIntervalMs,
        probeLeaseMs: o.fleetProbeLeaseMs ?? o.breakerProbeTimeoutMs + 1_000,
        maxReadsPerRound: 256,
        failureThreshold: o.breakerConsecutiveFailures,
      },
      clock,
      { all: () => registry.all(), find: (key) => registry.find(key) },
      emit,
    );
  }
  const pipeline: Pipeline = { options: o, clock, emit, watch: new DeadlineWatch(clock) };
  const breakers = () => registry.snapshots();
  emit?.({ type: 'recorder_attached', breakers });

  function execute<T>(
    fn: (context: AttemptContext) => T | Promise<T>,
    call: CallOptions = noOptions,
  ): Promise<T> {
    try {
      validateCallOptions(fn, call);
    } catch (error) {
      return Promise.reject(error);
    }
    const ref: CallRef = {
      callId: nextCallId++,
      endpoint: call.endpoint ?? 'default',
      operation: call.operation ?? 'call',
      attributes: callAttributes(call),
    };
    const endpoint = registry.get(ref.endpoint, call.endpointAttributes ?? noAttributes);
    if (endpoint.fleetRead) return afterFirstRead(endpoint).then(() => run(fn, call, ref, endpoint));
    return run(fn, call, ref, endpoint);
  }

  function run<T>(
    fn: (context: AttemptContext) => T | Promise<T>,
    call: CallOptions,
    ref: CallRef,
    endpoint: Endpoint,
  ): Promise<T> {
    const start = clock.now();
    emit?.({ type: 'call_started', ...ref, time: start });
    endpoint.callStarted(start);
    return new Call(pipeline, fn, call, ref, endpoint, start, call.timeoutMs ?? o.timeoutMs).run();
  }

  /** A new endpoint's first calls wait for the fleet's health of it, at most `fleetFirstReadWaitMs`. */
  function afterFirstRead(endpoint: Endpoint): Promise<void> {
    const stop = new AbortController();
    return Promise.race([
      endpoint.fleetRead,
      clock.sleep(o.fleetFirstReadWaitMs, stop.signal, { unref: true }).catch(() => {}),
    ]).finally(() => stop.abort());
  }

  async function close(): Promise<void> {
    if (!fleet) return;
    fleet.close();
    fleet = undefined;
    await o.healthStore?.close();
  }

  return { execute, breakers, options: o, close };
}

/** A replica id: a UUID where the platform has one. */
function randomId(clock: { random(): number }): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return c?.randomUUID?.() ?? `replica-${Math.floor(clock.random() * 2 ** 52).toString(36)}`;
}

/** The recorder behind a guard: a throwing recorder is reported once and never breaks a call. */
function safeRecorder(recorder: Recorder): ((event: ResilienceEvent) => void) | undefined {
  if (recorder === noopRecorder) return undefined;
  let warned = false;
  return (event) => {
    try {
      recorder.record(event);
    } catch (error) {
      if (!warned) {
        warned = true;
        console.warn('[mcp-resilience] the recorder threw; its further errors are ignored:', error);
      }
    }
  };
}
