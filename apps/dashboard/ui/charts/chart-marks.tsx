import { ReferenceArea } from 'recharts';

/**
 * The still-filling buckets, shaded instead of plotted as a drop (their "partial" label is drawn by
 * `ChartOverlay`, placed where no mark covers it).
 */
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
