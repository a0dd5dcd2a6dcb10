import {
  type Counter,
  type Histogram,
  type Meter,
  type ObservableGauge,
  ValueType,
} from '@opentelemetry/api';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import { type AgentLoopInstruments, createAgentLoopInstruments } from './recordAgentLoop.js';
import { createFleetInstruments, type FleetInstruments } from './recordFleet.js';
import {
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
  UNIT_CALL,
  UNIT_COST,
  UNIT_ERROR,
  UNIT_RETRY,
  UNIT_SECONDS,
  UNIT_STATE,
  UNIT_TRANSITION,
} from './semconv.js';

/** The metrics of calls and attempts. */
export interface CallInstruments {
  readonly calls: Counter;
  readonly retries: Counter;
  readonly errors: Counter;
  readonly callDuration: Histogram;
  readonly wastedTime: Counter;
  /** Only with `costPerAttempt`. */
  readonly wastedCost: Counter | undefined;
  readonly operationDuration: Histogram;
  readonly shadowDisagreements: Counter;
}

/** The metrics of breakers and their gates. */
export interface BreakerInstruments {
  readonly transitions: Counter;
  readonly breakerState: ObservableGauge;
  readonly waitDuration: Histogram;
  readonly waiting: ObservableGauge;
  readonly shed: Counter;
}

/** Every instrument of design §4, from one meter. */
export interface Instruments extends CallInstruments, BreakerInstruments {
  readonly agentLoop: AgentLoopInstruments;
  readonly fleet: FleetInstruments;
}

export function createInstruments(meter: Meter, options: ResolvedOtelRecorderOptions): Instruments {
  return {
    ...createCallInstruments(meter, options.costPerAttempt),
    ...createBreakerInstruments(meter),
    agentLoop: createAgentLoopInstruments(meter, options.costPerAttempt),
    fleet: createFleetInstruments(meter),
  };
}

const INT = ValueType.INT;
const DOUBLE = ValueType.DOUBLE;

function createCallInstruments(meter: Meter, costPerAttempt: number | undefined): CallInstruments {
  return {
    calls: meter.createCounter(METRIC_MCP_RESILIENCE_CALLS, {
      description:
        'Logical calls and how they ended (rejected = short-circuited by an open breaker or a wait).',
      unit: UNIT_CALL,
      valueType: INT,
    }),
    retries: meter.createCounter(METRIC_MCP_RESILIENCE_RETRIES, {
      description: 'Retry attempts (attempts 2..N) by their own outcome; efficiency = outcome=success / all.',
      unit: UNIT_RETRY,
      valueType: INT,
    }),
    errors: meter.createCounter(METRIC_MCP_RESILIENCE_ERRORS, {
      description: 'Failed attempts, by error class and type.',
      unit: UNIT_ERROR,
      valueType: INT,
    }),
    callDuration: meter.createHistogram(METRIC_MCP_RESILIENCE_CALL_DURATION, {
      description: 'Duration of logical calls, every attempt and wait included.',
      unit: UNIT_SECONDS,
      valueType: DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_RESILIENCE_CALL_DURATION_BUCKETS] },
    }),
    wastedTime: meter.createCounter(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, {
      description: 'Time spent in failed retries, the backoff waits before them included.',
      unit: UNIT_SECONDS,
      valueType: DOUBLE,
    }),
    wastedCost:
      costPerAttempt === undefined
        ? undefined
        : meter.createCounter(METRIC_MCP_RESILIENCE_RETRY_WASTED_COST, {
            description: 'Failed retries times the user-assigned cost per attempt.',
            unit: UNIT_COST,
            valueType: DOUBLE,
          }),
    operationDuration: meter.createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
      description: 'Duration of one MCP request (one attempt) as observed by the client.',
      unit: UNIT_SECONDS,
      valueType: DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_CLIENT_OPERATION_DURATION_BUCKETS] },
    }),
    shadowDisagreements: meter.createCounter(METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS, {
      description: 'Failed attempts the shadow classifier classified differently (class or type).',
      unit: UNIT_ERROR,
      valueType: INT,
    }),
  };
}

function createBreakerInstruments(meter: Meter): BreakerInstruments {
  return {
    transitions: meter.createCounter(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS, {
      description: 'Circuit breaker state changes.',
      unit: UNIT_TRANSITION,
      valueType: INT,
    }),
    breakerState: meter.createObservableGauge(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, {
      description: 'Circuit breaker state, one-hot: 1 for the current state, 0 for the others.',
      unit: UNIT_STATE,
      valueType: INT,
    }),
    waitDuration: meter.createHistogram(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION, {
      description: "Time calls waited at a circuit breaker's gate for its verdict, by how the wait ended.",
      unit: UNIT_SECONDS,
      valueType: DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION_BUCKETS] },
    }),
    waiting: meter.createObservableGauge(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING, {
      description: "Calls waiting at a circuit breaker's gate now.",
      unit: UNIT_CALL,
      valueType: INT,
    }),
    shed: meter.createCounter(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED, {
      description: "Calls shed at once because a circuit breaker's wait queue was full.",
      unit: UNIT_CALL,
      valueType: INT,
    }),
  };
}
