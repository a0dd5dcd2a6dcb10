'use client';

import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { trailingEfficiency } from '@/lib/data/trailing-efficiency';
import type { Annotation, CompareBy, CompareGroup } from '@/lib/data/types';
import { fmtAxisTime, fmtNumber, fmtPct, fmtTime, TARGET_EFFICIENCY } from '@/lib/format';
import { compareGroupLink } from '../charts/calls-link';
import { annotationMarks, partialMark, selectionMark } from '../charts/chart-marks';
import { useChartNavigation } from '../charts/use-chart-navigation';

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
}: {
  groups: CompareGroup[];
  by: CompareBy;
  metric: 'efficiency' | 'calls';
  spanMs: number;
  annotations?: readonly Annotation[];
}) {
  const base = groups[0]?.calls;
  const step = base?.step ?? 60_000;
  const nav = useChartNavigation(step, metric === 'efficiency' ? { only: 'retried' } : { only: 'failed' });
  if (!base) return <div className="empty">Nothing to compare in this window.</div>;
  const partialFrom = base.partialFrom;
  const isPartial = (t: number) => partialFrom !== undefined && t >= partialFrom;
  const firstPartial = base.points.findIndex((p) => isPartial(p.t));
  const trailing = groups.map((g) => trailingEfficiency(g.efficiency.points, step));
  // Complete buckets are the solid lines (`g<i>`); still-filling ones are drawn apart (`p<i>`, dashed: "so far"),
  // joined to the last complete bucket, as on the calls chart.
  const last = base.points[base.points.length - 1]?.t ?? 0;
  const data = base.points.map((p, k) => {
    const row: Record<string, number | null> = { t: p.t };
    const partial = isPartial(p.t);
    const joinsPartial = firstPartial > 0 && k === firstPartial - 1;
    for (const [i, g] of groups.entries()) {
      let value: number | null;
      if (metric === 'calls') {
        const elapsed = bucketElapsed(g.calls, p.t, last);
        const c = g.calls.points[k];
        const n = c ? c.success + c.failure + c.rejected : 0;
        // a still-filling bucket without data yet is a gap, not a drop to 0
        value = partial && n === 0 ? null : elapsed > 0 ? (n * 60_000) / elapsed : 0;
      } else {
        value = trailing[i]![k]?.efficiency ?? null;
      }
      row[`g${i}`] = partial ? null : value;
      row[`p${i}`] = partial || joinsPartial ? value : null;
    }
    return row;
  });
  const first = base.points[0]?.t ?? 0;
  return (
    <div data-testid={`compare-${metric}`} data-groups={groups.map((g) => g.key).join(',')}>
      <ResponsiveContainer width="100%" height={250} initialDimension={{ width: 520, height: 250 }}>
        <LineChart data={data} margin={{ top: 14, right: 16, bottom: 0, left: -10 }} {...nav.handlers}>
          <CartesianGrid stroke="#eef0f3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={[first, last + step]}
            scale="time"
            tickFormatter={(t) => fmtAxisTime(t, spanMs)}
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
          {annotationMarks(annotations, first, last + step)}
          {partialMark(partialFrom, last, step)}
          {selectionMark(nav.selection)}
          {metric === 'efficiency' ? (
            <ReferenceLine y={TARGET_EFFICIENCY} stroke="#d93636" strokeDasharray="6 4" />
          ) : null}
          {groups.map((g, i) => (
            <Line
              key={g.key}
              type="monotone"
              dataKey={`g${i}`}
              name={g.key || '(none)'}
              stroke={PALETTE[i % PALETTE.length]}
              strokeWidth={2}
              dot={false}
              activeDot={{ r: 5, cursor: 'pointer', ...nav.pointProps(compareGroupLink(by, g.key)) }}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
          {groups.map((g, i) => (
            <Line
              key={`partial-${g.key}`}
              type="linear"
              dataKey={`p${i}`}
              name={`${g.key || '(none)'} so far`}
              legendType="none"
              stroke={PALETTE[i % PALETTE.length]}
              strokeWidth={2}
              strokeDasharray="4 3"
              dot={false}
              activeDot={{ r: 5, cursor: 'pointer', ...nav.pointProps(compareGroupLink(by, g.key)) }}
              connectNulls={false}
              isAnimationActive={false}
              className="partial-line"
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
