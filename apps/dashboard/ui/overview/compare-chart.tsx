'use client';

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Annotation, CompareBy, CompareGroup } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtPct, fmtTime, TARGET_EFFICIENCY } from '@/lib/format';
import { compareGroupLink } from '../charts/calls-link';
import { partialMark, selectionMark } from '../charts/chart-marks';
import ChartOverlay from '../charts/chart-overlay';
import { axisSpan } from '../charts/time-chart-props';
import { useChartNavigation } from '../charts/use-chart-navigation';
import { compareChartRows } from './compare-chart-rows';

const TARGET_LINE = { text: `target ${TARGET_EFFICIENCY}`, value: TARGET_EFFICIENCY, color: '#d93636' };
const PALETTE = ['#2f6fed', '#d93636', '#1a9e55', '#e3a008', '#7c3aed', '#0891b2', '#db2777', '#475569'];

/**
 * Groups side by side on the same axes: one line per group (efficiency, or calls per minute). A click on a
 * line's point opens the Calls page for that bucket and group; elsewhere, for the bucket (all groups).
 */
export default function CompareChart({
  groups,
  by,
  metric,
  spanMs,
  annotations = [],
  start,
}: {
  groups: CompareGroup[];
  by: CompareBy;
  metric: 'efficiency' | 'calls';
  spanMs: number;
  annotations?: readonly Annotation[];
  /** Where the charts start (their first data, `compareChartsStart`): nothing is drawn before it. */
  start?: number | undefined;
}) {
  const base = groups[0]?.calls;
  const step = base?.step ?? 60_000;
  const nav = useChartNavigation(step, metric === 'efficiency' ? { only: 'retried' } : { only: 'failed' });
  if (!base) return <div className="empty">Nothing to compare in this window.</div>;
  const partialFrom = base.partialFrom;
  const last = base.points[base.points.length - 1]?.t ?? 0;
  const data = compareChartRows(groups, metric).filter((d) => start === undefined || d.t! >= start);
  const first = data[0]?.t ?? 0;
  const plotted = groups.flatMap((_, i) =>
    ['g', 'p'].map((k) => data.map((d) => ({ t: d.t!, v: d[`${k}${i}`] ?? null }))),
  );
  return (
    <div
      data-testid={`compare-${metric}`}
      data-groups={groups.map((g) => g.key).join(',')}
      data-start={first}
      data-partial-from={partialFrom ?? ''}
    >
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <LineChart data={data} margin={{ top: 16, right: 16, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first, last + step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, axisSpan(spanMs, first, last + step))}
            fontSize={11}
          />
          <YAxis
            fontSize={11}
            {...(metric === 'efficiency'
              ? { domain: [0, 1], tickFormatter: (v: number) => `${Math.round(v * 100)}%` }
              : {})}
          />
          <Tooltip
            labelFormatter={(t) => fmtTime(Number(t))}
            formatter={(v) => (metric === 'efficiency' ? fmtPct(Number(v)) : fmtNumber(Number(v), 1))}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {partialMark(partialFrom, last, step)}
          {selectionMark(nav.selection)}
          {groupLines(groups, by, nav.pointProps)}
          <ChartOverlay
            annotations={annotations}
            from={first}
            to={last + step}
            partialFrom={partialFrom}
            line={metric === 'efficiency' ? TARGET_LINE : undefined}
            plotted={plotted}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Each group's lines: its complete buckets (solid), then its still-filling ones (dashed, "so far"). */
function groupLines(
  groups: readonly CompareGroup[],
  by: CompareBy,
  pointProps: ReturnType<typeof useChartNavigation>['pointProps'],
) {
  const common = (g: CompareGroup, i: number) => ({
    stroke: PALETTE[i % PALETTE.length],
    strokeWidth: 2,
    dot: false,
    activeDot: { r: 5, cursor: 'pointer', ...pointProps(compareGroupLink(by, g.key)) },
    connectNulls: false,
    isAnimationActive: false,
  });
  return [
    ...groups.map((g, i) => (
      <Line key={g.key} type="monotone" dataKey={`g${i}`} name={g.key || '(none)'} {...common(g, i)} />
    )),
    ...groups.map((g, i) => (
      <Line
        key={`partial-${g.key}`}
        type="linear"
        dataKey={`p${i}`}
        name={`${g.key || '(none)'} so far`}
        legendType="none"
        strokeDasharray="4 3"
        className="partial-line"
        {...common(g, i)}
      />
    )),
  ];
}
