import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type ObservableGauge,
  type ObservableResult,
  ValueType,
} from '@opentelemetry/api';
import type { BreakerSnapshot } from '../decide/BreakerState.js';
import { attemptAnnotations } from '../record/attemptAnnotations.js';
import type { Recorder } from '../record/Recorder.js';
import type { ResilienceEvent } from '../record/ResilienceEvent.js';
import {
  attemptSemconvAttributes,
  breakerMetricAttributes,
  callMetricAttributes,
  errorAttributes,
  errorClassValue,
  errorTypeValue,
  operationMetricAttributes,
  stateValue,
  withVariant,
} from './attributes.js';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import { type AgentLoopInstruments, createAgentLoopInstruments, recordAgentLoop } from './recordAgentLoop.js';
import { createFleetInstruments, type FleetInstruments, recordFleet } from './recordFleet.js';
import {
  ATTR_ERROR_CLASS,
  ATTR_ERROR_TYPE,
  ATTR_FROM_STATE,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  ATTR_OUTCOME,
  ATTR_STATE,
  ATTR_TO_STATE,
  CALL_OUTCOME_VALUES,
  INSTRUMENTATION_SCOPE_NAME,
  MCP_CLIENT_OPERATION_DURATION_BUCKETS,
  MCP_RESILIENCE_CALL_DURATION_BUCKETS,
  MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_BUCKETS,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_COST,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS,
  OTHER_VALUE,
  OUTCOME_VALUE_SUCCESS,
  STATE_VALUES,
  UNIT_CALL,
  UNIT_COST,
  UNIT_ERROR,
  UNIT_RETRY,
  UNIT_SECONDS,
  UNIT_STATE,
  UNIT_TRANSITION,
  WAIT_OUTCOME_VALUES,
} from './semconv.js';

interface Instruments {
  readonly calls: Counter;
  readonly retries: Counter;
  readonly errors: Counter;
  readonly callDuration: Histogram;
  readonly wastedTime: Counter;
  readonly wastedCost: Counter | undefined;
  readonly transitions: Counter;
  readonly operationDuration: Histogram;
  readonly breakerState: ObservableGauge;
  readonly agentLoop: AgentLoopInstruments;
  readonly fleet: FleetInstruments;
  readonly shadowDisagreements: Counter;
  readonly waitDuration: Histogram;
  readonly waiting: ObservableGauge;
  readonly shed: Counter;
}

/** Breaker sources (resilience instances) followed at most; the oldest is dropped beyond. */
const MAX_BREAKER_SOURCES = 256;
const STATE_RANK: Readonly<Record<string, number>> = { closed: 0, half_open: 1, open: 2 };

function createInstruments(meter: Meter, options: ResolvedOtelRecorderOptions): Instruments {
  return {
    calls: meter.createCounter(METRIC_MCP_RESILIENCE_CALLS, {
      description:
        'Logical calls and how they ended (rejected = short-circuited by an open breaker or a wait).',
      unit: UNIT_CALL,
      valueType: ValueType.INT,
    }),
    retries: meter.createCounter(METRIC_MCP_RESILIENCE_RETRIES, {
      description: 'Retry attempts (attempts 2..N) by their own outcome; efficiency = outcome=success / all.',
      unit: UNIT_RETRY,
      valueType: ValueType.INT,
    }),
    errors: meter.createCounter(METRIC_MCP_RESILIENCE_ERRORS, {
      description: 'Failed attempts, by error class and type.',
      unit: UNIT_ERROR,
      valueType: ValueType.INT,
    }),
    callDuration: meter.createHistogram(METRIC_MCP_RESILIENCE_CALL_DURATION, {
      description: 'Duration of logical calls, every attempt and wait included.',
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_RESILIENCE_CALL_DURATION_BUCKETS] },
    }),
    wastedTime: meter.createCounter(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, {
      description: 'Time spent in failed retries, the backoff waits before them included.',
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
    }),
    wastedCost:
      options.costPerAttempt === undefined
        ? undefined
        : meter.createCounter(METRIC_MCP_RESILIENCE_RETRY_WASTED_COST, {
            description: 'Failed retries times the user-assigned cost per attempt.',
            unit: UNIT_COST,
            valueType: ValueType.DOUBLE,
          }),
    transitions: meter.createCounter(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS, {
      description: 'Circuit breaker state changes.',
      unit: UNIT_TRANSITION,
      valueType: ValueType.INT,
    }),
    operationDuration: meter.createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
      description: 'Duration of one MCP request (one attempt) as observed by the client.',
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_CLIENT_OPERATION_DURATION_BUCKETS] },
    }),
    breakerState: meter.createObservableGauge(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, {
      description: 'Circuit breaker state, one-hot: 1 for the current state, 0 for the others.',
      unit: UNIT_STATE,
      valueType: ValueType.INT,
    }),
    agentLoop: createAgentLoopInstruments(meter, options.costPerAttempt),
    fleet: createFleetInstruments(meter),
    shadowDisagreements: meter.createCounter(METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS, {
      description: 'Failed attempts the shadow classifier classified differently (class or type).',
      unit: UNIT_ERROR,
      valueType: ValueType.INT,
    }),
    waitDuration: meter.createHistogram(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION, {
      description: "Time calls waited at a circuit breaker's gate for its verdict, by how the wait ended.",
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_BUCKETS] },
    }),
    waiting: meter.createObservableGauge(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING, {
      description: "Calls waiting at a circuit breaker's gate now.",
      unit: UNIT_CALL,
      valueType: ValueType.INT,
    }),
    shed: meter.createCounter(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED, {
      description: "Calls shed at once because a circuit breaker's wait queue was full.",
      unit: UNIT_CALL,
      valueType: ValueType.INT,
    }),
  };
}

/** Turns resilience events into the metrics of design §4. */
export function createMetricRecorder(
  options: ResolvedOtelRecorderOptions,
  report: (error: unknown) => void,
  onCapReached: () => void,
): Recorder & { readonly openCalls: number } {
  let provider: MeterProvider | undefined;
  let instruments: Instruments | undefined;
  let broken = false;
  const sources: Array<() => readonly BreakerSnapshot[]> = [];
  /** callId → `error.type` of the call's last failed attempt: the failure that triggers its next retry. */
  const lastFailure = new Map<number, string>();
  /** The trace-context carrier of each call's running attempt: the key of what the edge annotated. */
  const carriers = new Map<number, object>();

  /** Per breaker attribute set: the worst state and the calls waiting, over every source. */
  const readBreakers = () => {
    // Several resilience instances may share a server name: keep the worst state, sum the waiting calls.
    const byKey = new Map<string, { attributes: Attributes; state: string; waiting: number }>();
    for (const breakers of sources) {
      let snapshots: readonly BreakerSnapshot[];
      try {
        snapshots = breakers();
      } catch (error) {
        report(error);
        continue;
      }
      for (const snapshot of snapshots) {
        const attributes = breakerMetricAttributes(snapshot.endpoint, snapshot.attributes ?? {});
        const key = JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
        const state = stateValue(snapshot.state);
        const waiting = Number.isFinite(snapshot.waiting) ? Math.max(0, snapshot.waiting ?? 0) : 0;
        const seen = byKey.get(key);
        if (!seen) byKey.set(key, { attributes, state, waiting });
        else {
          seen.waiting += waiting;
          if ((STATE_RANK[state] ?? -1) > (STATE_RANK[seen.state] ?? -1)) seen.state = state;
        }
      }
    }
    return byKey.values();
  };
  const observeBreakers = (result: ObservableResult) => {
    for (const { attributes, state } of readBreakers()) {
      for (const value of STATE_VALUES)
        result.observe(value === state ? 1 : 0, { ...attributes, [ATTR_STATE]: value });
    }
  };
  const observeWaiting = (result: ObservableResult) => {
    for (const { attributes, waiting } of readBreakers()) result.observe(waiting, attributes);
  };

  /** The instruments of the current provider; rebuilt when the global provider is replaced (SDK started later). */
  const getInstruments = (): Instruments | undefined => {
    if (broken) return undefined;
    const current = options.meterProvider ?? metrics.getMeterProvider();
    if (instruments && current === provider) return instruments;
    try {
      const created = createInstruments(current.getMeter(INSTRUMENTATION_SCOPE_NAME), options);
      created.breakerState.addCallback((result) => {
        try {
          observeBreakers(result);
        } catch (error) {
          report(error);
        }
      });
      created.waiting.addCallback((result) => {
        try {
          observeWaiting(result);
        } catch (error) {
          report(error);
        }
      });
      provider = current;
      instruments = created;
      return created;
    } catch (error) {
      broken = true; // a provider that throws here would throw on every event: stop asking
      throw error;
    }
  };

  const remember = (callId: number, errorType: string) => {
    lastFailure.delete(callId);
    lastFailure.set(callId, errorType);
    if (lastFailure.size > options.maxOpenCalls) {
      lastFailure.delete(lastFailure.keys().next().value as number);
      onCapReached();
    }
  };

  return {
    get openCalls() {
      return lastFailure.size;
    },
    record(event: ResilienceEvent) {
      if (event.type === 'recorder_attached') {
        if (typeof event.breakers === 'function' && !sources.includes(event.breakers)) {
          sources.push(event.breakers);
          if (sources.length > MAX_BREAKER_SOURCES) sources.shift();
        }
        getInstruments();
        return;
      }
      if (event.type === 'call_finished') {
        lastFailure.delete(event.callId); // first: never leak on a throw below
        carriers.delete(event.callId);
      }
      if (event.type === 'attempt_started') {
        carriers.delete(event.callId);
        carriers.set(event.callId, event.traceContext);
        if (carriers.size > options.maxOpenCalls) carriers.delete(carriers.keys().next().value as number);
        return;
      }
      const m = getInstruments();
      if (!m) return;
      switch (event.type) {
        case 'attempt_finished': {
          const seconds = Math.max(0, event.durationMs) / 1000;
          const failed = event.outcome !== 'success';
          const type = failed ? errorTypeValue(event.classification?.type) : undefined;
          const annotated = attemptSemconvAttributes(attemptAnnotations(carriers.get(event.callId)));
          carriers.delete(event.callId);
          // The MCP conventions' `error.type` (the JSON-RPC code, `tool_error`) when the edge knows it.
          const operationType = annotated[ATTR_ERROR_TYPE] ?? type;
          const operation = operationMetricAttributes(event);
          if (annotated[ATTR_MCP_PROTOCOL_VERSION] !== undefined) {
            operation[ATTR_MCP_PROTOCOL_VERSION] = annotated[ATTR_MCP_PROTOCOL_VERSION];
          }
          m.operationDuration.record(
            seconds,
            operationType === undefined ? operation : { ...operation, [ATTR_ERROR_TYPE]: operationType },
          );
          const base = callMetricAttributes(event);
          if (event.attempt >= 2) {
            m.retries.add(1, {
              ...base,
              [ATTR_OUTCOME]: failed ? 'failure' : OUTCOME_VALUE_SUCCESS,
              [ATTR_ERROR_TYPE]: lastFailure.get(event.callId) ?? OTHER_VALUE,
            });
          }
          if (failed) {
            m.errors.add(1, { ...base, ...errorAttributes(event.classification) });
            remember(event.callId, type ?? OTHER_VALUE);
          }
          return;
        }
        case 'call_finished': {
          const base = callMetricAttributes(event);
          const outcome = (CALL_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
            ? event.outcome
            : OTHER_VALUE;
          const success = outcome === OUTCOME_VALUE_SUCCESS;
          m.calls.add(
            1,
            success
              ? { ...base, [ATTR_OUTCOME]: outcome }
              : { ...base, [ATTR_OUTCOME]: outcome, ...errorAttributes(event.classification) },
          );
          m.callDuration.record(
            Math.max(0, event.durationMs) / 1000,
            success
              ? { ...base, [ATTR_OUTCOME]: outcome }
              : {
                  ...base,
                  [ATTR_OUTCOME]: outcome,
                  [ATTR_ERROR_CLASS]: errorClassValue(event.classification?.class),
                },
          );
          m.wastedTime.add(Math.max(0, event.wastedTimeMs) / 1000, base);
          if (m.wastedCost && options.costPerAttempt !== undefined) {
            m.wastedCost.add(Math.max(0, event.wastedRetries) * options.costPerAttempt, base);
          }
          return;
        }
        case 'breaker_wait_finished': {
          // Per breaker, plus the call's variant: each variant has its own breakers, so its own gate.
          const attributes = breakerMetricAttributes(event.endpoint, event.endpointAttributes ?? {});
          withVariant(attributes, event.attributes ?? {});
          const outcome = (WAIT_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
            ? event.outcome
            : OTHER_VALUE;
          m.waitDuration.record(Math.max(0, event.durationMs) / 1000, {
            ...attributes,
            [ATTR_OUTCOME]: outcome,
          });
          if (outcome === 'shed') m.shed.add(1, attributes);
          return;
        }
        case 'breaker_transition':
          m.transitions.add(1, {
            ...breakerMetricAttributes(event.endpoint, event.attributes),
            [ATTR_FROM_STATE]: stateValue(event.from),
            [ATTR_TO_STATE]: stateValue(event.to),
          });
          return;
        case 'model_retry_avoided':
        case 'fallback':
          return recordAgentLoop(m.agentLoop, event);
        case 'health_store':
        case 'fleet_decision':
          return recordFleet(m.fleet, event);
        case 'shadow_classified':
          if (event.agrees) return;
          m.shadowDisagreements.add(1, {
            ...callMetricAttributes(event),
            ...errorAttributes(event.classification),
            [ATTR_MCP_RESILIENCE_SHADOW_CLASS]: errorClassValue(event.shadow?.class),
            [ATTR_MCP_RESILIENCE_SHADOW_TYPE]: errorTypeValue(event.shadow?.type),
          });
          return;
        default:
          return;
      }
    },
  };
}
