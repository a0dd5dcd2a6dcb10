import type { Series } from './types';

/**
 * The time a point's count is divided by for its rate: its bucket; the newest still-filling one's, from its
 * start to the series' `end` (the time its counts cover: shorter or longer than the bucket); other
 * still-filling ones', their elapsed part.
 */
export function bucketElapsed(
  series: Pick<Series<unknown>, 'step' | 'partialFrom' | 'end'>,
  t: number,
  lastT: number,
): number {
  if (series.partialFrom === undefined || t < series.partialFrom) return series.step;
  const end = series.end ?? t + series.step;
  return t === lastT ? end - t : Math.min(series.step, end - t);
}
