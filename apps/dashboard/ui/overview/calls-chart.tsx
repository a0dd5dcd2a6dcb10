'use client';

import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CallsPoint, Series } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtTime } from '@/lib/format';

/** Calls per minute by outcome, stacked. */
export default function CallsChart({ series, spanMs }: { series: Series<CallsPoint>; spanMs: number }) {
  const perMinute = 60_000 / series.step;
  const data = series.points.map((p) => ({
    t: p.t,
    success: p.success * perMinute,
    failure: p.failure * perMinute,
    rejected: p.rejected * perMinute,
  }));
  return (
    <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 520, height: 240 }}>
      <AreaChart data={data} margin={{ top: 10, right: 16, bottom: 0, left: -10 }}>
        <CartesianGrid stroke="#eef0f3" vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          domain={['dataMin', 'dataMax']}
          scale="time"
          tickFormatter={(t) => fmtAxisTime(t, spanMs)}
          fontSize={11}
        />
        <YAxis fontSize={11} />
        <Tooltip labelFormatter={(t) => fmtTime(Number(t))} formatter={(v) => fmtNumber(Number(v), 2)} />
        <Area
          type="monotone"
          dataKey="success"
          stackId="1"
          stroke="#1a9e55"
          fill="#1a9e55"
          fillOpacity={0.35}
          isAnimationActive={false}
        />
        <Area
          type="monotone"
          dataKey="failure"
          stackId="1"
          stroke="#d93636"
          fill="#d93636"
          fillOpacity={0.45}
          isAnimationActive={false}
        />
        <Area
          type="monotone"
          dataKey="rejected"
          stackId="1"
          stroke="#e3a008"
          fill="#e3a008"
          fillOpacity={0.45}
          isAnimationActive={false}
        />
      </AreaChart>
    </ResponsiveContainer>
  );
}
