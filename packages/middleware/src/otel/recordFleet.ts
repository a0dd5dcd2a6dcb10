import {
  type Counter,
  type Histogram,
  type Meter,
  type ObservableGauge,
  ValueType,
} from '@opentelemetry/api';
import type { FleetDecisionEvent, HealthStoreEvent } from '../record/ResilienceEvent.js';
import { breakerMetricAttributes } from './attributes.js';
import {
  ATTR_MCP_RESILIENCE_FLEET_DECISION,
  FLEET_DECISION_VALUES,
  MCP_RESILIENCE_FLEET_SYNC_LAG_BUCKETS,
  METRIC_MCP_RESILIENCE_FLEET_DECISIONS,
  METRIC_MCP_RESILIENCE_FLEET_SYNC_LAG,
  METRIC_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS,
  METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE,
  METRIC_MCP_RESILIENCE_HEALTH_STORE_UNREADABLE,
  OTHER_VALUE,
  UNIT_DECISION,
  UNIT_FALLBACK,
  UNIT_READ,
  UNIT_SECONDS,
  UNIT_STATE,
} from './semconv.js';

/** The instruments of the shared health store and the fleet's decisions. */
export interface FleetInstruments {
  readonly reachable: ObservableGauge;
  readonly fallbacks: Counter;
  readonly unreadable: Counter;
  readonly decisions: Counter;
  readonly syncLag: Histogram;
  /** The store's last known reachability (undefined until a store reports). */
  lastReachable: boolean | undefined;
}

export function createFleetInstruments(meter: Meter): FleetInstruments {
  const instruments: FleetInstruments = {
    reachable: meter.createObservableGauge(METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE, {
      description: 'Whether the shared health store answers (1) or the process runs on its local health (0).',
      unit: UNIT_STATE,
      valueType: ValueType.INT,
    }),
    fallbacks: meter.createCounter(METRIC_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS, {
      description: 'Times the process fell back to its local health because the shared store failed.',
      unit: UNIT_FALLBACK,
      valueType: ValueType.INT,
    }),
    unreadable: meter.createCounter(METRIC_MCP_RESILIENCE_HEALTH_STORE_UNREADABLE, {
      description: 'Shared health this version cannot read (another version, garbage): ignored.',
      unit: UNIT_READ,
      valueType: ValueType.INT,
    }),
    decisions: meter.createCounter(METRIC_MCP_RESILIENCE_FLEET_DECISIONS, {
      description: "What this replica decided from the fleet's shared health.",
      unit: UNIT_DECISION,
      valueType: ValueType.INT,
    }),
    syncLag: meter.createHistogram(METRIC_MCP_RESILIENCE_FLEET_SYNC_LAG, {
      description: "From another replica's verdict to its adoption here.",
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...MCP_RESILIENCE_FLEET_SYNC_LAG_BUCKETS] },
    }),
    lastReachable: undefined,
  };
  instruments.reachable.addCallback((result) => {
    if (instruments.lastReachable !== undefined) result.observe(instruments.lastReachable ? 1 : 0);
  });
  return instruments;
}

export function recordFleet(m: FleetInstruments, event: HealthStoreEvent | FleetDecisionEvent): void {
  if (event.type === 'health_store') {
    if (event.kind === 'unreadable') m.unreadable.add(1);
    else {
      m.lastReachable = event.kind === 'reachable';
      if (event.kind === 'unreachable') m.fallbacks.add(1);
    }
    return;
  }
  const attributes = breakerMetricAttributes(event.endpoint, event.attributes ?? {});
  const decision = (FLEET_DECISION_VALUES as readonly string[]).includes(event.decision)
    ? event.decision
    : OTHER_VALUE;
  m.decisions.add(1, { ...attributes, [ATTR_MCP_RESILIENCE_FLEET_DECISION]: decision });
  if (event.lagMs !== undefined && Number.isFinite(event.lagMs)) {
    m.syncLag.record(Math.max(0, event.lagMs) / 1000, attributes);
  }
}
