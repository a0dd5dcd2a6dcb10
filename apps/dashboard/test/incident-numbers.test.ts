import { createToolGuard } from '@mcp-resilience/middleware/tools';
import { describe, expect, it } from 'vitest';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { createCapture, serialize } from './support/otel';
import { tempStore } from './support/temp-store';
import { standardScript } from './support/workload';

/*
 * The embedded store keeps what the incident view needs, fed by the real OTel SDK over OTLP protobuf: the
 * call-duration buckets (latency quantiles), the variant, the agent-loop and breaker-gate numbers.
 */

const q = (): TimeQuery => ({ from: Date.now() - 600_000, to: Date.now() + 60_000, filters: {} });
const weather = {
  'mcp.resilience.server': 'weather',
  'gen_ai.tool.name': 'get_forecast',
  'mcp.method.name': 'tools/call',
};

describe('embedded store: incident numbers', () => {
  it('answers p50/p95/p99 per server and tool from the stored histogram buckets, across exports', async () => {
    const { store, source } = tempStore();
    const agent = createCapture();
    const h = agent.meter.createHistogram('mcp.resilience.call.duration', {
      unit: 's',
      advice: { explicitBucketBoundaries: [0.1, 0.5, 1, 5] },
    });
    for (let i = 0; i < 50; i++) h.record(0.05, { ...weather, 'mcp.resilience.outcome': 'success' });
    for (let i = 0; i < 20; i++) h.record(0.3, { ...weather, 'mcp.resilience.outcome': 'success' });
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
    // the next export is cumulative: only its increase may count
    for (let i = 0; i < 20; i++) h.record(0.3, { ...weather, 'mcp.resilience.outcome': 'failure' });
    for (let i = 0; i < 10; i++) h.record(2, { ...weather, 'mcp.resilience.outcome': 'failure' });
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
    h.record(0.01, {
      'mcp.resilience.server': 'search',
      'gen_ai.tool.name': 'find',
      'mcp.resilience.outcome': 'success',
    });
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));

    const rows = await source.latency(q());
    expect(rows.map((r) => `${r.server}/${r.tool}:${r.calls}`)).toEqual([
      'search/find:1',
      'weather/get_forecast:100',
    ]);
    const w = rows[1]!;
    expect(w.p50).toBeCloseTo(0.1, 9);
    expect(w.p95).toBeCloseTo(3, 9);
    expect(w.p99).toBeCloseTo(4.6, 9);
    expect(rows[0]!.p50).toBeCloseTo(0.05, 9);
    // a filter applies to the buckets too
    const only = await source.latency({ ...q(), filters: { server: 'search' } });
    expect(only.map((r) => r.server)).toEqual(['search']);
  });

  it('keeps model retries avoided and their saved time, shed calls and calls waiting per breaker', async () => {
    const { store, source } = tempStore();
    const agent = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-1' });
    const other = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-2' });
    agent.meter
      .createCounter('mcp.resilience.model_retries.avoided')
      .add(4, { ...weather, 'mcp.resilience.error.type': 'invalid_params' });
    agent.meter.createCounter('mcp.resilience.model_retries.saved_time', { unit: 's' }).add(1.25, weather);
    agent.meter
      .createCounter('mcp.resilience.circuit_breaker.shed')
      .add(3, { 'mcp.resilience.server': 'weather' });
    // Two more processes with calls waiting at their weather breaker (the workloads' own recorders report 0).
    const gateA = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-3' });
    const gateB = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-4' });
    const waitingA = gateA.meter.createUpDownCounter('mcp.resilience.circuit_breaker.waiting');
    waitingA.add(5, { 'mcp.resilience.server': 'weather' });
    gateB.meter
      .createUpDownCounter('mcp.resilience.circuit_breaker.waiting')
      .add(2, { 'mcp.resilience.server': 'weather' });
    // a breaker to show them on, and a call so the window has data
    for (const a of [agent, other]) {
      await a.run([{ server: 'weather', tool: 'get_forecast', steps: ['ok'] }]);
      createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await a.metrics()), 'protobuf'));
    }
    for (const g of [gateA, gateB]) {
      createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await g.metrics()), 'protobuf'));
    }
    const h = await source.headline(q());
    // no agent reports a cost (no `costPerAttempt`): none is shown
    expect(h.modelRetries).toEqual({ avoided: 4, savedSeconds: 1.25, savedCost: null });
    expect(h.now.modelRetries.avoided).toBe(4);
    let tile = (await source.breakerTiles(q())).find((t) => t.server === 'weather')!;
    expect(tile).toMatchObject({ waiting: 7, shed: 3 });
    // the level goes down: waiting is the latest level, not a sum of exports
    waitingA.add(-5, { 'mcp.resilience.server': 'weather' });
    await new Promise((r) => setTimeout(r, 5));
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await gateA.metrics()), 'protobuf'));
    tile = (await source.breakerTiles(q())).find((t) => t.server === 'weather')!;
    expect(tile.waiting).toBeLessThan(7);
    expect(tile.shed).toBe(3);
  });

  it('keeps what the avoided model retries would have cost, from the middleware with costPerAttempt', async () => {
    const { store, source } = tempStore();
    const agent = createCapture(
      { 'service.name': 'agent', 'service.instance.id': 'a-1' },
      { costPerAttempt: 0.25 },
    );
    // the model calls a tool with invalid arguments 4 times: the 3 repeats are answered from the negative cache
    const guard = createToolGuard({ server: 'weather', recorder: agent.recorder });
    const invalid = async () => {
      throw Object.assign(new Error('MCP error -32602: Invalid arguments for tool get_forecast'), {
        code: -32602,
      });
    };
    const calls = [];
    for (let i = 0; i < 4; i++) calls.push(await guard('get_forecast', { city: '' }, invalid));
    expect(calls.map((c) => c.ok === false && c.repeat)).toEqual([false, true, true, true]);
    // no retry failed (the error is not retryable): there is no wasted cost to infer a cost per attempt from
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
    const h = await source.headline(q());
    expect(h.wastedRetries).toBe(0);
    expect(h.modelRetries.avoided).toBe(3);
    // 3 repeats of a call that failed at its one attempt: 3 × 1 × 0.25
    expect(h.modelRetries.savedCost).toBeCloseTo(0.75, 9);
    expect(h.now.modelRetries.savedCost).toBeCloseTo(0.75, 9);
    // filtered like every other count
    const other = await source.headline({ ...q(), filters: { server: 'search' } });
    expect(other.modelRetries.savedCost).toBeNull();
  });

  it('keeps the experiment variant: filters and compare by variant', async () => {
    const { store, source } = tempStore();
    const agent = createCapture();
    const calls = agent.meter.createCounter('mcp.resilience.calls');
    calls.add(10, { ...weather, 'mcp.resilience.outcome': 'success', 'mcp.resilience.variant': 'canary' });
    calls.add(30, { ...weather, 'mcp.resilience.outcome': 'success', 'mcp.resilience.variant': 'baseline' });
    calls.add(5, { ...weather, 'mcp.resilience.outcome': 'failure', 'mcp.resilience.variant': 'canary' });
    createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
    expect((await source.dimensions(q())).variants).toEqual(['baseline', 'canary']);
    const canary = await source.summary({ ...q(), filters: { variant: 'canary' } });
    expect(canary.calls).toEqual({ total: 15, success: 10, failure: 5, rejected: 0 });
    const groups = await source.compare(q(), 'variant');
    expect(groups.map((g) => [g.key, g.callsTotal, g.failures])).toEqual([
      ['baseline', 30, 0],
      ['canary', 15, 5],
    ]);
  });

  it('filters the Calls page to what a chart point stands for (bucket, outcome, class, type)', async () => {
    const { store, source } = tempStore();
    const agent = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-1' });
    await agent.run(standardScript('weather'));
    createIngestSink(store).traces(decodeTraces(serialize.tracesProto(agent.spans()), 'protobuf'));
    const all = await source.recentCalls(q(), { limit: 100 });
    expect(all.length).toBeGreaterThan(3);
    expect(new Set(all.map((c) => c.service))).toEqual(new Set(['agent']));
    const failed = all.filter((c) => c.outcome === 'failure');
    const nonRetryable = await source.recentCalls({ ...q(), errorClass: 'non_retryable' }, { limit: 100 });
    expect(nonRetryable.length).toBeGreaterThan(0);
    expect(nonRetryable.every((c) => c.errorClass === 'non_retryable')).toBe(true);
    expect(nonRetryable.length).toBeLessThan(failed.length + 1);
    const byOutcome = await source.recentCalls({ ...q(), outcome: 'failure' }, { limit: 100 });
    expect(byOutcome.map((c) => c.spanId).sort()).toEqual(failed.map((c) => c.spanId).sort());
    // a bucket: only calls that started in it
    const t = all[0]!.startMs;
    const bucket = await source.recentCalls(
      { ...q(), from: Math.floor(t), to: Math.floor(t) + 1 },
      { limit: 100 },
    );
    expect(bucket.every((c) => c.startMs >= Math.floor(t) && c.startMs < Math.floor(t) + 1)).toBe(true);
    expect(bucket.map((c) => c.spanId)).toContain(all[0]!.spanId);
  });
});
