'use client';

import { useSyncExternalStore } from 'react';
import { fmtAxisTime, fmtDateTime, fmtTime, type TimeZoneMode } from '@/lib/format';

const never = () => () => {};

/**
 * A time in the browser's zone, as the charts show it, from a server-rendered page: the server (which knows no
 * viewer's zone) renders it in UTC, marked so, and the browser shows it in its own zone once hydrated (React
 * hydrates with the server's snapshot, then re-renders: no hydration mismatch). `<time dateTime>` carries the
 * exact instant, also as the tooltip.
 */
export default function LocalTime({
  t,
  format = 'time',
  spanMs = 0,
}: {
  /** Epoch ms. */
  t: number;
  format?: 'time' | 'datetime' | 'axis';
  /** For `axis`: the span the label is on (days show the date). */
  spanMs?: number;
}) {
  const zone: TimeZoneMode = useSyncExternalStore(
    never,
    () => 'local',
    () => 'utc',
  );
  if (!Number.isFinite(t)) return <>–</>;
  const text =
    format === 'datetime'
      ? fmtDateTime(t, zone)
      : format === 'axis'
        ? fmtAxisTime(t, spanMs, zone)
        : fmtTime(t, true, zone);
  const iso = new Date(t).toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {zone === 'utc' ? `${text} UTC` : text}
    </time>
  );
}
