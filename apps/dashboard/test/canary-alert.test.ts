import type { ModelRetryAvoidedEvent } from '@mcp-resilience/middleware';
import {
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
} from '@mcp-resilience/middleware/semconv';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertService } from '@/lib/alerts/alert-service';
import { AlertStore } from '@/lib/alerts/alert-store';
import { CANARY_RULE, canaryConditions, canaryVerdict } from '@/lib/alerts/canary-rule';
import { createNotifier } from '@/lib/alerts/notifier';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { shapeExperiment } from '@/lib/data/experiments';
import type { VariantCounts } from '@/lib/data/experiments-types';
import type { MetricsSource } from '@/lib/data/metrics-source';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { openDatabase } from '@/lib/store/database';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { BAD_CANDIDATE, canaryRecorder, runCanary } from './support/canary-workload';
import { createCapture, serialize } from './support/otel';

/*
 * The canary through the real middleware and OTel SDK into the embedded store (OTLP protobuf, decoded as the
 * receiver does), then the built-in canary alert and the Experiments page's shaping on top of it.
 */

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A model's repeat answered from a variant's negative cache, as the middleware's negative-cache stage emits it. */
const avoidedRepeat = (variant: string): ModelRetryAvoidedEvent => ({
  type: 'model_retry_avoided',
  time: Date.now(),
  endpoint: 'weather',
  operation: 'tools/call',
  attributes: {
    [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
    [ATTR_MCP_METHOD_NAME]: 'tools/call',
    [ATTR_MCP_RESILIENCE_VARIANT]: variant,
  },
  classification: { class: 'non_retryable', type: 'invalid_params', execution: 'executed', source: 'status' },
  savedMs: 100,
  savedAttempts: 1,
});

async function canaryStore(
  candidate?: Record<string, unknown>,
  exports = 1,
  avoided: Record<string, number> = {},
) {
  const store = new EmbeddedStore({
    dataDir: ':memory:',
    retentionMs: 86_400_000,
    maxCalls: 5000,
    maxAttempts: 20_000,
  });
  open.push(store);
  const capture = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a1' });
  const counted = canaryRecorder(capture.recorder);
  const ingest = async () => {
    createIngestSink(store).metrics(
      decodeMetrics(serialize.metricsProto(await capture.metrics()), 'protobuf'),
    );
    const spans = capture.spans();
    if (spans.length > 0)
      createIngestSink(store).traces(decodeTraces(serialize.tracesProto(spans), 'protobuf'));
    capture.resetSpans();
  };
  for (let i = 0; i < exports; i++) {
    await runCanary(counted.recorder, 400, { seed: 11 + i, ...(candidate ? { candidate } : {}) });
    for (const [variant, n] of Object.entries(avoided))
      for (let k = 0; k < n; k++) capture.recorder.record(avoidedRepeat(variant));
    await ingest();
  }
  return { source: new EmbeddedSource(store, { staleMs: 600_000 }), truth: counted.truth };
}

const window = () => ({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, filters: {} });

describe('embedded store: variants', () => {
  it('counts each variant across repeated cumulative exports, histogram buckets included', async () => {
    const { source, truth } = await canaryStore(undefined, 3);
    const data = await source.experimentData(window());
    for (const v of data.variants) {
      expect(v.calls).toEqual(truth.calls[v.variant]);
      expect(v.retries).toEqual(truth.retries[v.variant]);
      expect(v.latency.at(-1)?.count).toBe(truth.calls[v.variant]!.total);
    }
    expect(data.variants.map((v) => v.variant)).toEqual(['candidate', 'control']);
    // The page's other panels are unchanged: the facts sum over variants.
    const summary = await source.summary(window());
    expect(summary.calls.total).toBe(truth.calls.control!.total + truth.calls.candidate!.total);
  });
});

describe('embedded store: share of calls and of draws', () => {
  it("counts each variant's repeats answered from its cache apart from its calls, and both shares", async () => {
    const avoided = { control: 40, candidate: 2 };
    const { source, truth } = await canaryStore(undefined, 2, avoided);
    const data = await source.experimentData(window());
    const ran = (v: string) => truth.calls[v]!.total;
    for (const v of data.variants) {
      expect(v.calls).toEqual(truth.calls[v.variant]);
      expect(v.avoided).toBe(2 * avoided[v.variant as keyof typeof avoided]);
    }
    const shown = shapeExperiment(data).variants.find((v) => v.variant === 'candidate')!;
    expect(shown.avoided).toBe(4);
    expect(shown.callShare).toBeCloseTo(ran('candidate') / (ran('candidate') + ran('control')), 12);
    expect(shown.drawnShare).toBeCloseTo(
      (ran('candidate') + 4) / (ran('candidate') + ran('control') + 84),
      12,
    );
    // The control's cache answers more of its repeats: the candidate's share of calls that ran is the higher one.
    expect(shown.callShare!).toBeGreaterThan(shown.drawnShare!);
  });
});

describe('embedded store: stored calls by variant', () => {
  it("keeps each call span's variant; the Calls page filters by it", async () => {
    const { source, truth } = await canaryStore(BAD_CANDIDATE);
    const failed = (variant?: string) =>
      source.recentCalls(
        { ...window(), filters: variant ? { variant } : {} },
        { limit: 500, only: 'failed' },
      );
    for (const variant of ['control', 'candidate']) {
      const calls = await failed(variant);
      expect(calls.length).toBe(truth.calls[variant]!.failure + truth.calls[variant]!.rejected);
      expect(new Set(calls.map((c) => c.variant))).toEqual(new Set([variant]));
    }
    expect((await failed()).length).toBe(
      (await failed('control')).length + (await failed('candidate')).length,
    );
  });
});

describe('built-in canary alert', () => {
  const service = (source: EmbeddedSource, now: () => number) => {
    const store = new AlertStore(openDatabase(':memory:').db, now);
    return {
      store,
      alerts: new AlertService({ store, source, notify: createNotifier(), now }),
    };
  };

  it('goes pending, then fires after 10 minutes, when the candidate succeeds significantly less', async () => {
    const { source } = await canaryStore(BAD_CANDIDATE);
    expect(shapeExperiment(await source.experimentData(window())).comparisons[0]?.verdict).toBe('worse');
    let now = Date.now();
    const { store, alerts } = service(source, () => now);
    await alerts.evaluate();
    const canary = () => store.instances().filter((i) => i.ruleId === CANARY_RULE.id);
    expect(
      canary().map((i) => [i.labels.mcp_resilience_server, i.labels.mcp_resilience_variant, i.state]),
    ).toEqual([['weather', 'candidate', 'pending']]);
    now += CANARY_RULE.forMs;
    await alerts.evaluate();
    const [firing] = canary();
    expect(firing?.state).toBe('firing');
    expect(firing?.summary).toMatch(
      // its calls began 10 minutes before this evaluation, not an hour: the summary says so
      /^Canary candidate is worse than control on weather over 10m \(data since \d\d:\d\d UTC\): success rate -\d+\.\d pts/,
    );
    expect(firing?.value).toBeLessThan(0);
  });

  it('stays silent when the candidate is better', async () => {
    const { source } = await canaryStore();
    const { store, alerts } = service(source, () => Date.now());
    await alerts.evaluate();
    expect(store.instances().filter((i) => i.ruleId === CANARY_RULE.id && i.state !== 'resolved')).toEqual(
      [],
    );
  });
});

describe('built-in canary alert: retry efficiency and the minimums', () => {
  const counts = (
    variant: string,
    calls: number,
    success: number,
    retries = 0,
    successfulRetries = 0,
  ): VariantCounts => ({
    variant,
    calls: { total: calls, success, failure: calls - success, rejected: 0 },
    retries: { total: retries, successful: successfulRetries },
    avoided: 0,
    nonRetryable: { sumSeconds: 0, count: 0 },
    latency: [],
  });
  /** The numbers the rule reads, for one server, without a store. */
  const source = (variants: VariantCounts[]) =>
    ({
      experimentData: async () => ({
        from: 0,
        to: 0,
        variants,
        errors: [],
        disagreements: [],
        examples: null,
      }),
      dimensions: async () => ({ services: ['agent'], servers: ['weather'], tools: [], variants: [] }),
      // no data start known: the summary names the whole window
      dataStartByServer: async () => new Map(),
    }) as unknown as MetricsSource;

  it('fires on a significantly worse retry efficiency alone (same success rate), naming it', async () => {
    // both succeed 190/200 calls; the candidate's retries succeed 6/20, the control's 18/20 (z ≈ -3.9)
    const control = counts('control', 200, 190, 20, 18);
    const candidate = counts('candidate', 200, 190, 20, 6);
    const [worse, ...more] = canaryVerdict(CANARY_RULE, candidate, control);
    expect(more).toEqual([]);
    expect(worse?.metric).toBe('retry efficiency');
    expect(worse?.diff).toBeCloseTo(-0.6, 9);
    expect(worse?.z).toBeLessThan(CANARY_RULE.zThreshold);
    const conditions = await canaryConditions(source([control, candidate]), CANARY_RULE, Date.now());
    expect([...conditions.values()]).toEqual([
      {
        holds: true,
        labels: {
          alertname: CANARY_RULE.name,
          mcp_resilience_server: 'weather',
          mcp_resilience_variant: 'candidate',
          severity: CANARY_RULE.severity,
        },
        value: worse?.diff,
        summary: expect.stringMatching(
          /^Canary candidate is worse than control on weather over 60m: retry efficiency -60\.0 pts \(z = -3\.\d\)$/,
        ),
      },
    ]);
    // a better retry efficiency is not an alert
    expect(canaryVerdict(CANARY_RULE, control, candidate)).toEqual([]);
  });

  it(`needs ${CANARY_RULE.minCalls} calls in both variants for the success rate`, () => {
    expect(CANARY_RULE.minCalls).toBe(100);
    // 80% against 99%: far beyond the threshold, once there are enough calls
    expect(canaryVerdict(CANARY_RULE, counts('candidate', 100, 80), counts('control', 100, 99))).toEqual([
      expect.objectContaining({ metric: 'success rate' }),
    ]);
    expect(canaryVerdict(CANARY_RULE, counts('candidate', 99, 79), counts('control', 100, 99))).toEqual([]);
    expect(canaryVerdict(CANARY_RULE, counts('candidate', 100, 80), counts('control', 99, 98))).toEqual([]);
  });

  it(`needs ${CANARY_RULE.minRetries} retries in both variants for the retry efficiency`, async () => {
    expect(CANARY_RULE.minRetries).toBe(20);
    const control = (retries: number) => counts('control', 200, 190, retries, retries - 2);
    const candidate = (retries: number) => counts('candidate', 200, 190, retries, 6);
    expect(canaryVerdict(CANARY_RULE, candidate(20), control(20))).toEqual([
      expect.objectContaining({ metric: 'retry efficiency' }),
    ]);
    expect(canaryVerdict(CANARY_RULE, candidate(19), control(20))).toEqual([]);
    expect(canaryVerdict(CANARY_RULE, candidate(20), control(19))).toEqual([]);
    // below the minimum the condition is evaluated, and does not hold
    const conditions = await canaryConditions(source([control(19), candidate(19)]), CANARY_RULE, Date.now());
    expect([...conditions.values()].map((c) => [c.holds, c.summary])).toEqual([
      [false, 'Canary candidate is not significantly worse than control on weather'],
    ]);
  });
});
