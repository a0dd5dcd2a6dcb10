import type { MetricsRequest, TracesRequest } from '../otlp/model';
import type { IngestResult, OtlpSink } from '../otlp/receiver';
import type { EmbeddedStore } from '../store/embedded-store';
import type { IngestContext } from './ingest-context';
import { mapMetrics } from './map-metrics';
import { mapTraces } from './map-traces';
import type { Rejected } from './records';

const result = (r: Rejected): IngestResult =>
  r.count > 0 ? { rejected: r.count, message: r.reasons.join('; ') } : { rejected: 0 };

/**
 * The OTLP receiver's sink for the embedded store: maps each request to domain records (`mapMetrics`,
 * `mapTraces`) against the store's series states and label caps, then has the store write them in one
 * transaction. Mapping and writing run in the same synchronous turn, so no other request interleaves.
 */
export function createIngestSink(store: EmbeddedStore): OtlpSink {
  const context = (): IngestContext => ({
    bounds: {
      now: store.now(),
      retentionMs: store.options.retentionMs,
      maxFutureSkewMs: store.maxFutureSkewMs,
    },
    baselineBefore: store.createdAt,
    seriesState: (key) => store.seriesState(key),
    seriesRoom: Math.max(0, store.maxSeries - store.trackedSeries),
    maxSeries: store.maxSeries,
    seriesBytesRoom: Math.max(0, store.maxSeriesBytes - store.trackedSeriesBytes),
    maxSeriesBytes: store.maxSeriesBytes,
    label: (name, value) => store.labels.admit(name, value),
  });
  return {
    metrics(request: MetricsRequest): IngestResult {
      const batch = mapMetrics(request, context());
      store.writeMetrics(batch);
      return result(batch.rejected);
    },
    traces(request: TracesRequest): IngestResult {
      const batch = mapTraces(request, context());
      store.writeTraces(batch);
      return result(batch.rejected);
    },
  };
}
