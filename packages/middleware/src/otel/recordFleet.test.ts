import { afterEach, describe, expect, it, vi } from 'vitest';
import { createResilience, type Resilience } from '../createResilience.js';
import { createMemoryHealthStore } from '../health/store/createMemoryHealthStore.js';
import { createFakeClock } from '../testing/createFakeClock.js';
import { createOtelRecorder } from './createOtelRecorder.js';
import {
  METRIC_MCP_RESILIENCE_FLEET_DECISIONS,
  METRIC_MCP_RESILIENCE_FLEET_SYNC_LAG,
  METRIC_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS,
  METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE,
} from './semconv.js';
import { createOtelHarness } from './test-support/otelHarness.js';

const down = () => {
  throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
};

describe('fleet telemetry', () => {
  const open: Resilience[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.close()));
    vi.restoreAllMocks();
  });

  it('counts fleet decisions with their sync lag, the store reachability and each fallback', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const otel = createOtelHarness();
    const options = { clock, maxAttempts: 1, breakerConsecutiveFailures: 2, breakerWait: false } as const;
    const a = createResilience({ ...options, healthStore: hub.connect() });
    const b = createResilience({
      ...options,
      healthStore: hub.connect(),
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
    });
    open.push(a, b);
    const call = { endpoint: 'svc', endpointAttributes: { 'mcp.resilience.server': 'svc' } };
    await b.execute(() => 'ok', call);
    for (let i = 0; i < 2; i++) await a.execute(down, call).catch(() => {});
    for (let i = 0; i < 5; i++) await clock.advance(0);
    expect(b.breakers()[0]).toMatchObject({ state: 'open', fleet: true });
    const decisions = await otel.points(METRIC_MCP_RESILIENCE_FLEET_DECISIONS);
    expect(decisions).toContainEqual({
      attributes: { 'mcp.resilience.server': 'svc', 'mcp.resilience.fleet.decision': 'adopted_open' },
      value: 1,
    });
    expect(await otel.points(METRIC_MCP_RESILIENCE_FLEET_SYNC_LAG)).toHaveLength(1);
    expect((await otel.points(METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE))[0]?.value).toBe(1);

    vi.spyOn(console, 'warn').mockImplementation(() => {});
    hub.setReachable(false);
    for (let i = 0; i < 5; i++) await clock.advance(0);
    expect((await otel.points(METRIC_MCP_RESILIENCE_HEALTH_STORE_REACHABLE))[0]?.value).toBe(0);
    expect((await otel.points(METRIC_MCP_RESILIENCE_HEALTH_STORE_FALLBACKS))[0]?.value).toBe(1);
    await otel.shutdown();
  });
});
