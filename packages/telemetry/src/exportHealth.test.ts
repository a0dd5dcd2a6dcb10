import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { AggregationTemporality, InstrumentType, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it, vi } from 'vitest';
import {
  createDedupingDiagLogger,
  createExportHealth,
  describeExportError,
  watchMetricExporter,
  watchSpanExporter,
} from './exportHealth.js';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' });

function setup() {
  const warn = vi.fn();
  const info = vi.fn();
  const health = createExportHealth('http://collector:4318', warn, info);
  const target = { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn(), verbose: vi.fn() };
  return { warn, info, health, target, logger: createDedupingDiagLogger(target, health) };
}

describe('createExportHealth', () => {
  it('reports an outage once across signals, its recovery once, and the next outage again', () => {
    const { warn, info, health } = setup();
    health.failed('traces', refused());
    health.failed('metrics', refused());
    health.failed('traces', refused());
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toBe(
      '@mcp-resilience/telemetry: OTLP export to http://collector:4318 is failing (connect ECONNREFUSED 127.0.0.1:4318); ' +
        'telemetry is dropped until it recovers. Further export errors are not logged.',
    );
    health.succeeded('traces');
    expect(info).not.toHaveBeenCalled(); // metrics still failing
    health.succeeded('metrics');
    expect(info).toHaveBeenCalledWith(
      '@mcp-resilience/telemetry: OTLP export to http://collector:4318 recovered.',
    );
    expect(health.failing).toBe(false);
    health.failed('metrics', 'HTTP 503');
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it.each([
    [refused(), 'connect ECONNREFUSED 127.0.0.1:4318'],
    [Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }), 'ETIMEDOUT: timed out'],
    ['{"stack":"Error: boom\\n at x","message":"boom","name":"Error"}', 'boom'],
    ['x'.repeat(400), `${'x'.repeat(299)}…`],
  ])('describes %s shortly', (detail, expected) => {
    expect(describeExportError(detail)).toBe(expected);
  });
});

describe('createDedupingDiagLogger', () => {
  it('hands export failures to the health tracker instead of logging each one', () => {
    const { warn, target, logger } = setup();
    logger.error('PeriodicExportingMetricReader: metrics export timed out after 500ms');
    logger.error(
      '{"stack":"Error: connect ECONNREFUSED 127.0.0.1:4318","message":"connect ECONNREFUSED 127.0.0.1:4318"}',
    );
    logger.error('PeriodicExportingMetricReader: metrics export failed (error Error: connect ECONNREFUSED)');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(target.error).not.toHaveBeenCalled();
  });

  it('logs other messages once, counting messages that differ only in numbers as the same', () => {
    const { target, logger } = setup();
    logger.warn('dropped 3 spans: queue full');
    logger.warn('dropped 7 spans: queue full');
    logger.error('Attempted duplicate registration of API: trace');
    logger.error('Attempted duplicate registration of API: trace');
    logger.debug('a');
    logger.debug('a');
    expect(target.warn).toHaveBeenCalledTimes(1);
    expect(target.error).toHaveBeenCalledTimes(1);
    expect(target.debug).toHaveBeenCalledTimes(2);
  });
});

describe('watchSpanExporter / watchMetricExporter', () => {
  it('reports results to the health tracker and passes them on', () => {
    const { warn, info, health } = setup();
    let next: ExportResult = { code: ExportResultCode.FAILED, error: refused() };
    const spans: SpanExporter = { export: (_s, done) => done(next), shutdown: async () => {} };
    const watched = watchSpanExporter(spans, health);
    const done = vi.fn();
    watched.export([], done);
    expect(done).toHaveBeenCalledWith(next);
    expect(warn).toHaveBeenCalledTimes(1);
    next = { code: ExportResultCode.SUCCESS };
    watched.export([], done);
    expect(info).toHaveBeenCalledTimes(1);
  });

  it('keeps the metric exporter’s temporality preference', () => {
    const { health } = setup();
    const metrics: PushMetricExporter = {
      export: (_m, done) => done({ code: ExportResultCode.SUCCESS }),
      forceFlush: async () => {},
      shutdown: async () => {},
      selectAggregationTemporality: () => AggregationTemporality.DELTA,
    };
    const watched = watchMetricExporter(metrics, health);
    expect(watched.selectAggregationTemporality?.(InstrumentType.COUNTER)).toBe(AggregationTemporality.DELTA);
    expect(watched.selectAggregation).toBeUndefined();
  });
});
