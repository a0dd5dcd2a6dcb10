import type { IngestContext } from './ingest-context';

/**
 * The bytes a `cumulative_state` row takes, as the store counts them (`SERIES_BYTES_SQL`): its key, its bucket
 * counts as JSON, and a fixed part for the numbers and the row.
 */
export const seriesRowBytes = (key: string, buckets: readonly number[] | undefined): number =>
  key.length + (buckets ? JSON.stringify(buckets).length : 0) + ROW_OVERHEAD;

const ROW_OVERHEAD = 48;

/** `seriesRowBytes` in SQL, summed over the stored rows. */
export const SERIES_BYTES_SQL = `COALESCE(SUM(length(key) + COALESCE(length(buckets), 0) + ${ROW_OVERHEAD}), 0)`;

/**
 * The room left for new cumulative series in one request: in number (`OTLP_MAX_CUMULATIVE_SERIES`) and in bytes
 * (`OTLP_MAX_CUMULATIVE_SERIES_BYTES`: 100,000 histogram series with 257 buckets each would be ~450 MB).
 */
export class SeriesRoom {
  private count: number;
  private bytes: number;

  constructor(private readonly ctx: IngestContext) {
    this.count = ctx.seriesRoom;
    this.bytes = ctx.seriesBytesRoom;
  }

  /** Takes room for a new series, or returns why there is none (the point is refused). */
  take(metric: string, key: string, buckets: readonly number[] | undefined): string | undefined {
    if (this.count <= 0)
      return `${metric}: too many cumulative series (OTLP_MAX_CUMULATIVE_SERIES = ${this.ctx.maxSeries}), new series refused`;
    const bytes = seriesRowBytes(key, buckets);
    if (bytes > this.bytes)
      return `${metric}: cumulative series state beyond ${this.ctx.maxSeriesBytes} bytes (OTLP_MAX_CUMULATIVE_SERIES_BYTES), new series refused`;
    this.count--;
    this.bytes -= bytes;
    return undefined;
  }
}
