import { ReferenceArea, ReferenceLine } from 'recharts';
import type { Annotation } from '@/lib/data/types';

export const MARK_COLORS: Readonly<Record<string, string>> = {
  open: '#d93636',
  half_open: '#f08c00',
  closed: '#1a9e55',
  firing: '#7c3aed',
  resolved: '#64748b',
};

/**
 * Breaker transitions and alerts as vertical marks on a time chart (elements, not a component: Recharts reads
 * its children), within the chart's domain.
 */
export function annotationMarks(
  annotations: readonly Annotation[],
  from: number,
  to: number,
  yAxisId?: string,
) {
  return annotations
    .filter((a) => a.t >= from && a.t <= to)
    .map((a, i) => (
      <ReferenceLine
        key={`${a.kind}-${a.t}-${a.state}-${a.label}`}
        x={a.t}
        {...(yAxisId ? { yAxisId } : {})}
        stroke={MARK_COLORS[a.state] ?? '#64748b'}
        strokeDasharray={a.kind === 'alert' ? '2 3' : '4 2'}
        ifOverflow="discard"
        className={`annotation annotation-${a.kind}`}
        data-count={a.count}
        label={
          i < 12
            ? {
                value: `${a.kind === 'alert' ? '⚑' : '●'}${a.count > 1 ? a.count : ''}`,
                position: 'top',
                fontSize: 10,
              }
            : undefined
        }
      >
        <title>{a.label}</title>
      </ReferenceLine>
    ));
}

/** The still-filling buckets, shaded and labelled instead of plotted as a drop. */
export function partialMark(partialFrom: number | undefined, lastT: number, step: number, yAxisId?: string) {
  if (partialFrom === undefined || partialFrom > lastT) return null;
  return (
    <ReferenceArea
      x1={partialFrom}
      x2={lastT + step}
      {...(yAxisId ? { yAxisId } : {})}
      fill="#94a3b8"
      fillOpacity={0.15}
      ifOverflow="extendDomain"
      className="partial-bucket"
      // the label must not take the click meant for the last bucket's points
      label={{
        value: 'partial',
        position: 'insideTop',
        fontSize: 10,
        fill: '#64748b',
        pointerEvents: 'none',
      }}
    />
  );
}

/** The brush selection while dragging. */
export function selectionMark(selection: { x1: number; x2: number } | undefined, yAxisId?: string) {
  return selection ? (
    <ReferenceArea
      x1={selection.x1}
      x2={selection.x2}
      {...(yAxisId ? { yAxisId } : {})}
      fill="#2f6fed"
      fillOpacity={0.12}
    />
  ) : null;
}
