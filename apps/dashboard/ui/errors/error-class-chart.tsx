'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { KeyedPoint } from '@/lib/data/types';
import { fmtAxisTime, fmtTime } from '@/lib/format';
import { partialMark, selectionMark } from '../charts/chart-marks';
import ChartOverlay from '../charts/chart-overlay';
import { axisSpan, type TimeChartProps } from '../charts/time-chart-props';
import { useChartNavigation } from '../charts/use-chart-navigation';

const CLASS_COLORS: Record<string, string> = {
  retryable: '#2f6fed',
  non_retryable: '#d93636',
  conditional: '#e3a008',
};
const PALETTE = [
  '#2f6fed',
  '#d93636',
  '#e3a008',
  '#1a9e55',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#65a30d',
  '#ea580c',
  '#475569',
];

/**
 * Failed attempts per bucket, stacked by error class (or by type). A click opens the bucket's failed calls, a
 * drag zooms; the still-filling bucket is shaded.
 */
export default function ErrorClassChart({
  series,
  spanMs,
  annotations = [],
  start,
}: TimeChartProps<KeyedPoint>) {
  const nav = useChartNavigation(series.step, { only: 'failed' });
  const keys = [...new Set(series.points.flatMap((p) => Object.keys(p.values)))];
  const totals = new Map(keys.map((k) => [k, series.points.reduce((s, p) => s + (p.values[k] ?? 0), 0)]));
  const shown = keys.sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0)).slice(0, 10);
  const data = series.points
    .filter((p) => start === undefined || p.t >= start)
    .map((p) => ({
      t: p.t,
      ...Object.fromEntries(shown.map((k) => [k, p.values[k] ?? 0])),
    }));
  const first = data[0]?.t ?? 0;
  const last = series.points[series.points.length - 1]?.t ?? 0;
  return (
    <div data-testid="error-chart" data-partial-from={series.partialFrom ?? ''} data-start={first}>
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <BarChart data={data} margin={{ top: 16, right: 16, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first - series.step / 2, last + series.step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(Number(t), axisSpan(spanMs, first, last + series.step))}
            fontSize={11}
          />
          <YAxis allowDecimals={false} fontSize={11} />
          <Tooltip labelFormatter={(t) => `${fmtTime(Number(t))} · click for these calls`} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {partialMark(series.partialFrom, last, series.step)}
          {selectionMark(nav.selection)}
          {shown.map((k, i) => (
            <Bar
              key={k}
              dataKey={k}
              stackId="e"
              fill={CLASS_COLORS[k] ?? PALETTE[i % PALETTE.length]}
              isAnimationActive={false}
            />
          ))}
          <ChartOverlay
            annotations={annotations}
            from={first - series.step / 2}
            to={last + series.step}
            partialFrom={series.partialFrom}
          />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
