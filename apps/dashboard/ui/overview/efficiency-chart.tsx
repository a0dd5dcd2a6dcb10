'use client';

import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { trailingEfficiency } from '@/lib/data/trailing-efficiency';
import type { RatioPoint } from '@/lib/data/types';
import { fmtAxisTime, fmtPct, fmtTime, MIN_RETRIES_FOR_EFFICIENCY, TARGET_EFFICIENCY } from '@/lib/format';
import { partialMark, selectionMark } from '../charts/chart-marks';
import ChartOverlay from '../charts/chart-overlay';
import { axisSpan, type TimeChartProps } from '../charts/time-chart-props';
import { useChartNavigation } from '../charts/use-chart-navigation';

const TARGET_LINE = {
  text: `target ${TARGET_EFFICIENCY}`,
  value: TARGET_EFFICIENCY,
  yAxisId: 'eff',
  color: '#d93636',
};

/**
 * Efficiency with its volume (retries per bucket, bars on the right axis) and the 0.8 target line. Each point
 * holds at least MIN_RETRIES_FOR_EFFICIENCY retries (trailing buckets, at most 5 minutes), else it is a gap
 * (insufficient data, design §2): no 0-100% swings on tiny buckets. A click opens the bucket's retried calls,
 * a drag zooms.
 */
export default function EfficiencyChart({
  series,
  spanMs,
  annotations = [],
  start,
}: TimeChartProps<RatioPoint>) {
  const nav = useChartNavigation(series.step, { only: 'retried' });
  const trailing = trailingEfficiency(series.points, series.step);
  const data = series.points
    .map((p, k) => ({
      t: p.t,
      efficiency: trailing[k]!.efficiency,
      retries: p.total,
      successful: trailing[k]!.successful,
      total: trailing[k]!.total,
    }))
    .filter((d) => start === undefined || d.t >= start);
  const withData = data.filter((d) => d.efficiency !== null).length;
  const first = data[0]?.t ?? 0;
  const last = series.points[series.points.length - 1]?.t ?? 0;
  return (
    <div
      data-testid="efficiency-chart"
      data-target={TARGET_EFFICIENCY}
      data-points={withData}
      data-partial-from={series.partialFrom ?? ''}
      data-start={first}
    >
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <ComposedChart data={data} margin={{ top: 16, right: 0, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first - series.step / 2, last + series.step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, axisSpan(spanMs, first, last + series.step))}
            fontSize={11}
          />
          <YAxis
            yAxisId="eff"
            domain={[0, 1]}
            tickFormatter={(v) => `${Math.round(v * 100)}%`}
            fontSize={11}
          />
          <YAxis yAxisId="vol" orientation="right" allowDecimals={false} fontSize={11} width={40} />
          <Tooltip
            labelFormatter={(t) => `${fmtTime(Number(t))} · click for these calls`}
            formatter={(_v, name, item) => {
              const p = item.payload as { successful: number; total: number; efficiency: number | null };
              if (name === 'retries') return [String(_v), 'retries in bucket'];
              return [
                p.total < MIN_RETRIES_FOR_EFFICIENCY
                  ? `insufficient data (${p.successful}/${p.total}, needs ${MIN_RETRIES_FOR_EFFICIENCY})`
                  : `${fmtPct(p.efficiency)} (${p.successful}/${p.total})`,
                'efficiency',
              ];
            }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {partialMark(series.partialFrom, last, series.step, 'eff')}
          {selectionMark(nav.selection, 'eff')}
          <Bar yAxisId="vol" dataKey="retries" name="retries" fill="#cbd5e1" isAnimationActive={false} />
          <Line
            yAxisId="eff"
            type="monotone"
            dataKey="efficiency"
            name={`efficiency (≥ ${MIN_RETRIES_FOR_EFFICIENCY} retries a point)`}
            stroke="#2f6fed"
            strokeWidth={2}
            dot={withData < 60 ? { r: 3 } : false}
            connectNulls={false}
            isAnimationActive={false}
          />
          <ChartOverlay
            annotations={annotations}
            from={first - series.step / 2}
            to={last + series.step}
            partialFrom={series.partialFrom}
            line={TARGET_LINE}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
