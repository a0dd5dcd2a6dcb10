'use client';

import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { RatioPoint, Series } from '@/lib/data/types';
import { fmtAxisTime, fmtPct, fmtTime, TARGET_EFFICIENCY } from '@/lib/format';

/** Efficiency per bucket with the 0.8 target line; buckets without retries are gaps, not zeros. */
export default function EfficiencyChart({ series, spanMs }: { series: Series<RatioPoint>; spanMs: number }) {
  const data = series.points.map((p) => ({
    t: p.t,
    efficiency: p.total > 0 ? p.successful / p.total : null,
    successful: p.successful,
    total: p.total,
  }));
  const withData = data.filter((d) => d.efficiency !== null).length;
  return (
    <div data-testid="efficiency-chart" data-target={TARGET_EFFICIENCY}>
      <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 520, height: 240 }}>
        <LineChart data={data} margin={{ top: 10, right: 16, bottom: 0, left: -10 }}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={['dataMin', 'dataMax']}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, spanMs)}
            fontSize={11}
          />
          <YAxis domain={[0, 1]} tickFormatter={(v) => `${Math.round(v * 100)}%`} fontSize={11} />
          <Tooltip
            labelFormatter={(t) => fmtTime(Number(t))}
            formatter={(_v, _n, item) => {
              const p = item.payload as { successful: number; total: number; efficiency: number | null };
              return [`${fmtPct(p.efficiency)} (${p.successful}/${p.total})`, 'efficiency'];
            }}
          />
          <ReferenceLine
            y={TARGET_EFFICIENCY}
            stroke="#d93636"
            strokeDasharray="6 4"
            label={{
              value: `target ${TARGET_EFFICIENCY}`,
              position: 'insideTopRight',
              fontSize: 11,
              fill: '#d93636',
            }}
          />
          <Line
            type="monotone"
            dataKey="efficiency"
            stroke="#2f6fed"
            strokeWidth={2}
            dot={withData < 60 ? { r: 3 } : false}
            connectNulls={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
