'use client';

import { Area, AreaChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Annotation, CallsPoint, Series } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtTime } from '@/lib/format';
import { annotationMarks, partialMark, selectionMark } from '../charts/chart-marks';
import { useChartNavigation } from '../charts/use-chart-navigation';

/**
 * Calls per minute by outcome, stacked. A still-filling bucket is shaded and its rate taken over the part of
 * it that has elapsed (not over the whole step, which would read as a drop); a click opens that bucket's failed
 * calls, a drag zooms.
 */
export default function CallsChart({
  series,
  spanMs,
  annotations = [],
}: {
  series: Series<CallsPoint>;
  spanMs: number;
  annotations?: readonly Annotation[];
}) {
  const nav = useChartNavigation(series.step, { only: 'failed' });
  const data = series.points.map((p) => {
    const partial = series.partialFrom !== undefined && p.t >= series.partialFrom;
    const elapsed = partial ? Math.min(series.step, (series.end ?? p.t + series.step) - p.t) : series.step;
    const perMinute = elapsed > 0 ? 60_000 / elapsed : 0;
    // a still-filling bucket without data yet (the export is due) is a gap, not a drop to 0
    if (partial && p.success + p.failure + p.rejected === 0) {
      return { t: p.t, success: null, failure: null, rejected: null };
    }
    return {
      t: p.t,
      success: p.success * perMinute,
      failure: p.failure * perMinute,
      rejected: p.rejected * perMinute,
    };
  });
  const first = series.points[0]?.t ?? 0;
  const last = series.points[series.points.length - 1]?.t ?? 0;
  return (
    <div data-testid="calls-chart" data-partial-from={series.partialFrom ?? ''}>
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <AreaChart data={data} margin={{ top: 14, right: 16, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first, last + series.step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, spanMs)}
            fontSize={11}
          />
          <YAxis fontSize={11} />
          <Tooltip
            labelFormatter={(t) => `${fmtTime(Number(t))} · click for these calls`}
            formatter={(v) => fmtNumber(Number(v), 2)}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {annotationMarks(annotations, first, last + series.step)}
          {partialMark(series.partialFrom, last, series.step)}
          {selectionMark(nav.selection)}
          <Area
            type="monotone"
            dataKey="success"
            name="success /min"
            stackId="1"
            stroke="#1a9e55"
            fill="#1a9e55"
            fillOpacity={0.35}
            isAnimationActive={false}
          />
          <Area
            type="monotone"
            dataKey="failure"
            name="failure /min"
            stackId="1"
            stroke="#d93636"
            fill="#d93636"
            fillOpacity={0.45}
            isAnimationActive={false}
          />
          <Area
            type="monotone"
            dataKey="rejected"
            name="rejected /min"
            stackId="1"
            stroke="#e3a008"
            fill="#e3a008"
            fillOpacity={0.45}
            isAnimationActive={false}
          />
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
