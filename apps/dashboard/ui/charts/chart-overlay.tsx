'use client';

import { usePlotArea, useXAxisScale, useYAxisScale, ZIndexLayer } from 'recharts';
import type { Annotation } from '@/lib/data/types';
import {
  GLYPH_FONT,
  type LabelInput,
  layoutMarks,
  lineBoxes,
  type MarkInput,
  type MarkLayout,
} from './mark-layout';

export const MARK_COLORS: Readonly<Record<string, string>> = {
  open: '#d93636',
  half_open: '#f08c00',
  closed: '#1a9e55',
  firing: '#7c3aed',
  resolved: '#64748b',
};

/** A horizontal line ("target 0.8", dashed) with its label: at `value` on the axis `yAxisId`. */
export interface LineLabel {
  readonly text: string;
  readonly value: number;
  readonly yAxisId?: string;
  readonly color: string;
}

export interface ChartOverlayProps {
  readonly annotations: readonly Annotation[];
  /** The chart's x-domain: marks outside it are not drawn. */
  readonly from: number;
  readonly to: number;
  /** Where the still-filling buckets begin (their "partial" label), if any. */
  readonly partialFrom?: number | undefined;
  readonly line?: LineLabel | undefined;
  /** The plotted lines (their points, on the label's y-axis; null: a gap), which the labels keep off. */
  readonly plotted?: ReadonlyArray<ReadonlyArray<PlottedPoint>>;
}

/** A point of a plotted line: its bucket and value (null where the line has a gap). */
export interface PlottedPoint {
  readonly t: number;
  readonly v: number | null;
}

const LABEL_FONT = { partial: 10, line: 11 };

/**
 * Breaker transitions and alerts on a time chart, with the plot's labels, laid out so none covers another
 * (`layoutMarks`): glyphs in a lane above the plot, a line per mark through the plot that breaks where it
 * would cross the "partial" or a line's label, the labels off the plotted lines. A child of the Recharts chart (reads its scales), drawn above
 * the series.
 */
export default function ChartOverlay({
  annotations,
  from,
  to,
  partialFrom,
  line,
  plotted = [],
}: ChartOverlayProps) {
  const plot = usePlotArea();
  const x = useXAxisScale();
  const y = useYAxisScale(line?.yAxisId ?? 0);
  if (!plot || !x) return null;
  const marks: MarkInput[] = annotations
    .filter((a) => a.t >= from && a.t <= to)
    .map((a) => ({ x: Number(x(a.t)), kind: a.kind, state: a.state, label: a.label, count: a.count }));
  const labels: LabelInput[] = [];
  if (partialFrom !== undefined && partialFrom <= to) {
    labels.push({ id: 'partial', text: 'partial', fontSize: LABEL_FONT.partial, at: 'top' });
  }
  if (line && y)
    labels.push({ id: 'line', text: line.text, fontSize: LABEL_FONT.line, at: Number(y(line.value)) });
  const layout = layoutMarks(marks, plot, labels, plottedBoxes(plotted, x, y));
  return (
    <ZIndexLayer zIndex={650}>
      <g className="chart-overlay">
        {line && y ? (
          <line
            className="target-line"
            x1={plot.x}
            x2={plot.x + plot.width}
            y1={Number(y(line.value))}
            y2={Number(y(line.value))}
            stroke={line.color}
            strokeDasharray="6 4"
          />
        ) : null}
        <MarkLines lines={layout.lines} />
        <MarkGlyphs glyphs={layout.glyphs} />
        {layout.labels.map((l) => (
          <text
            key={l.id}
            className={`plot-label plot-label-${l.id}`}
            x={l.box.x + l.box.width}
            y={l.box.y + l.box.height - 2}
            textAnchor="end"
            fontSize={l.id === 'line' ? LABEL_FONT.line : LABEL_FONT.partial}
            fill={l.id === 'line' ? (line?.color ?? '#64748b') : '#64748b'}
            pointerEvents="none"
          >
            {l.text}
          </text>
        ))}
      </g>
    </ZIndexLayer>
  );
}

type Scale = (v: number) => unknown;

/** The boxes the plotted lines cover, in the chart's pixels (none without the y-axis' scale). */
function plottedBoxes(plotted: ReadonlyArray<ReadonlyArray<PlottedPoint>>, x: Scale, y: Scale | undefined) {
  if (!y) return [];
  return plotted.flatMap((points) =>
    lineBoxes(points.map((p) => ({ x: Number(x(p.t)), y: p.v === null ? null : Number(y(p.v)) }))),
  );
}

/** Each mark's line (its segments between the labels), with the event it stands for as its title. */
function MarkLines({ lines }: { lines: MarkLayout['lines'] }) {
  return lines.map(({ mark, segments }) => (
    <g
      key={`${mark.kind}-${mark.x}-${mark.state}-${mark.label}`}
      className={`annotation annotation-${mark.kind}`}
      data-count={mark.count}
    >
      <title>{mark.label}</title>
      {segments.map((s) => (
        <line
          key={s.y1}
          className="mark-line"
          x1={mark.x}
          x2={mark.x}
          y1={s.y1}
          y2={s.y2}
          stroke={MARK_COLORS[mark.state] ?? '#64748b'}
          strokeDasharray={mark.kind === 'alert' ? '2 3' : '4 2'}
        />
      ))}
    </g>
  ));
}

/** The lane's glyphs above the plot, each with the marks it stands for as its title. */
function MarkGlyphs({ glyphs }: { glyphs: MarkLayout['glyphs'] }) {
  return glyphs.map((g) => (
    <g key={g.box.x} className="mark-glyph" data-count={g.count}>
      <title>{g.title}</title>
      <text
        x={g.x}
        y={g.box.y + g.box.height - 2}
        textAnchor="middle"
        fontSize={GLYPH_FONT}
        fill={MARK_COLORS[g.state] ?? '#64748b'}
      >
        {g.text}
      </text>
    </g>
  ));
}
