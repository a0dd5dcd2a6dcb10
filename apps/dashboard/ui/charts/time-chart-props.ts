import type { Annotation, Series } from '@/lib/data/types';

/** What every time chart of a page takes: its series, the range's span, the marks, and where the charts start. */
export interface TimeChartProps<P> {
  readonly series: Series<P>;
  /** The selected range's length (the axis shows dates beyond 2 days). */
  readonly spanMs: number;
  readonly annotations?: readonly Annotation[];
  /** Where the page's charts start (their first data, `chartsStart`): nothing is drawn before it. */
  readonly start?: number | undefined;
}

/** The x-axis' tick format for a chart from `first` to `end` on a range of `spanMs`: seconds on a short one. */
export const axisSpan = (spanMs: number, first: number, end: number) => Math.min(spanMs, end - first);
