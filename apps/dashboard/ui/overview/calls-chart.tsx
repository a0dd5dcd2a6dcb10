'use client';

import { Area, AreaChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import type { Annotation, CallsPoint, Series } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtTime } from '@/lib/format';
import { annotationMarks, partialMark, selectionMark } from '../charts/chart-marks';
import { useChartNavigation } from '../charts/use-chart-navigation';

/** The still-filling buckets' rates so far: dashed, apart from the complete buckets' areas. */
const PARTIAL_AREAS = [
  { key: 'partialSuccess', name: 'success /min so far', color: '#1a9e55' },
  { key: 'partialFailure', name: 'failure /min so far', color: '#d93636' },
  { key: 'partialRejected', name: 'rejected /min so far', color: '#e3a008' },
] as const;

/**
 * Calls per minute by outcome, stacked. A still-filling bucket is shaded, drawn apart (dashed: "so far", not
 * part of the solid areas, so it never reads as a drop) and its rate taken over the part of it that has data
 * (up to the last export received, not over the whole step); a click opens that bucket's failed
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
  const isPartial = (t: number) => series.partialFrom !== undefined && t >= series.partialFrom;
  const firstPartial = series.points.findIndex((p) => isPartial(p.t));
  const last = series.points[series.points.length - 1]?.t ?? 0;
  const data = series.points.map((p, i) => {
    const partial = isPartial(p.t);
    const elapsed = bucketElapsed(series, p.t, last);
    const perMinute = elapsed > 0 ? 60_000 / elapsed : 0;
    const rates = {
      success: p.success * perMinute,
      failure: p.failure * perMinute,
      rejected: p.rejected * perMinute,
    };
    const none = { success: null, failure: null, rejected: null };
    // complete buckets are the solid areas; still-filling ones are drawn apart (dashed, "so far"), joined
    // to the last complete bucket; one without data yet (the export is due) is a gap, not a drop to 0
    const empty = p.success + p.failure + p.rejected === 0 || elapsed <= 0;
    const solid = partial ? none : rates;
    const joinsPartial = firstPartial > 0 && i === firstPartial - 1;
    const dashed = partial ? (empty ? none : rates) : joinsPartial ? rates : none;
    return {
      t: p.t,
      ...solid,
      partialSuccess: dashed.success,
      partialFailure: dashed.failure,
      partialRejected: dashed.rejected,
    };
  });
  const first = series.points[0]?.t ?? 0;
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
          {PARTIAL_AREAS.map((a) => (
            <Area
              key={a.key}
              type="linear"
              dataKey={a.key}
              name={a.name}
              legendType="none"
              stackId="partial"
              stroke={a.color}
              strokeDasharray="4 3"
              fill={a.color}
              fillOpacity={0.08}
              isAnimationActive={false}
              className="partial-area"
            />
          ))}
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
