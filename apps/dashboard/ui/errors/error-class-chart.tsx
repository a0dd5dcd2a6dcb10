'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { KeyedPoint, Series } from '@/lib/data/types';
import { fmtAxisTime, fmtTime } from '@/lib/format';

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

/** Failed attempts per bucket, stacked by error class (or by type). */
export default function ErrorClassChart({ series, spanMs }: { series: Series<KeyedPoint>; spanMs: number }) {
  const keys = [...new Set(series.points.flatMap((p) => Object.keys(p.values)))];
  const totals = new Map(keys.map((k) => [k, series.points.reduce((s, p) => s + (p.values[k] ?? 0), 0)]));
  const shown = keys.sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0)).slice(0, 10);
  const data = series.points.map((p) => ({
    t: p.t,
    ...Object.fromEntries(shown.map((k) => [k, p.values[k] ?? 0])),
  }));
  return (
    <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 520, height: 240 }}>
      <BarChart data={data} margin={{ top: 10, right: 16, bottom: 0, left: -10 }}>
        <CartesianGrid stroke="#eef0f3" vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t) => fmtAxisTime(Number(t), spanMs)} fontSize={11} />
        <YAxis allowDecimals={false} fontSize={11} />
        <Tooltip labelFormatter={(t) => fmtTime(Number(t))} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {shown.map((k, i) => (
          <Bar
            key={k}
            dataKey={k}
            stackId="e"
            fill={CLASS_COLORS[k] ?? PALETTE[i % PALETTE.length]}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
