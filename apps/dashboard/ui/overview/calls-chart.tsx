'use client';

import { Area, AreaChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CallsPoint } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtTime } from '@/lib/format';
import { partialMark, selectionMark } from '../charts/chart-marks';
import ChartOverlay from '../charts/chart-overlay';
import { axisSpan, type TimeChartProps } from '../charts/time-chart-props';
import { useChartNavigation } from '../charts/use-chart-navigation';
import { callsChartRows } from './calls-chart-rows';

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
export default function CallsChart({ series, spanMs, annotations = [], start }: TimeChartProps<CallsPoint>) {
  const nav = useChartNavigation(series.step, { only: 'failed' });
  const last = series.points[series.points.length - 1]?.t ?? 0;
  const data = callsChartRows(series).filter((d) => start === undefined || d.t >= start);
  const first = data[0]?.t ?? 0;
  return (
    <div data-testid="calls-chart" data-partial-from={series.partialFrom ?? ''} data-start={first}>
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <AreaChart data={data} margin={{ top: 16, right: 16, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first, last + series.step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, axisSpan(spanMs, first, last + series.step))}
            fontSize={11}
          />
          <YAxis fontSize={11} />
          <Tooltip
            labelFormatter={(t) => `${fmtTime(Number(t))} · click for these calls`}
            formatter={(v) => fmtNumber(Number(v), 2)}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
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
          <ChartOverlay
            annotations={annotations}
            from={first}
            to={last + series.step}
            partialFrom={series.partialFrom}
          />
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
