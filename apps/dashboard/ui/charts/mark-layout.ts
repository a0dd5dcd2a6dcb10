/** A rectangle in the chart's pixels (x, y: its top-left corner). */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** One mark to lay out: its pixel x and what it stands for. */
export interface MarkInput {
  readonly x: number;
  readonly kind: 'transition' | 'alert';
  readonly state: string;
  readonly label: string;
  readonly count: number;
}

/** A glyph in the mark lane above the plot: one or more marks too close to draw apart, with their count. */
export interface Glyph {
  readonly x: number;
  readonly text: string;
  readonly state: string;
  readonly count: number;
  readonly title: string;
  readonly box: Box;
}

/** A label of the plot ("partial", "target 0.8"): where it is drawn, right-aligned at `box.x + box.width`. */
export interface PlacedLabel {
  readonly id: string;
  readonly text: string;
  readonly box: Box;
}

/** A mark's vertical line, as the segments left between the labels it would cross. */
export interface MarkLine {
  readonly mark: MarkInput;
  readonly segments: ReadonlyArray<{ readonly y1: number; readonly y2: number }>;
}

export interface MarkLayout {
  readonly glyphs: readonly Glyph[];
  readonly lines: readonly MarkLine[];
  readonly labels: readonly PlacedLabel[];
}

/** A label to place: its text, font size, and the pixel y it belongs at (its baseline hangs just above it). */
export interface LabelInput {
  readonly id: string;
  readonly text: string;
  readonly fontSize: number;
  /** The y the label sits on (its box ends 2 px above it), or 'top' for the top inside the plot. */
  readonly at: number | 'top';
  /** The right edge the label is aligned to (defaults to the plot's right edge). */
  readonly right?: number;
}

/** The lane's glyph font size and the gap kept between glyphs, labels and lines. */
export const GLYPH_FONT = 10;
const GAP = 2;
/** An upper bound of a character's advance in the charts' sans-serif fonts, in em (digits and letters). */
const CHAR_EM = 0.68;

/** A text's box, from an upper bound of its advance (wider than the real text, never narrower). */
export function textWidth(text: string, fontSize: number): number {
  return Math.ceil([...text].length * fontSize * CHAR_EM) + 2;
}

const SEVERITY = ['open', 'half_open', 'firing', 'closed', 'resolved'];
const worse = (a: string, b: string) => {
  const ia = SEVERITY.indexOf(a);
  const ib = SEVERITY.indexOf(b);
  return (ib === -1 ? 99 : ib) < (ia === -1 ? 99 : ia) ? b : a;
};

interface Cluster {
  x: number;
  marks: MarkInput[];
}

const clusterCount = (c: Cluster) => c.marks.reduce((s, m) => s + m.count, 0);
const glyphText = (c: Cluster) => {
  const n = clusterCount(c);
  const symbol = c.marks.every((m) => m.kind === 'alert') ? '⚑' : '●';
  return `${symbol}${n > 1 ? n : ''}`;
};

function glyphOf(c: Cluster, lane: Box, before: Glyph | undefined): Glyph {
  const text = glyphText(c);
  const width = textWidth(text, GLYPH_FONT);
  const prevEnd = before ? before.box.x + before.box.width : Number.NEGATIVE_INFINITY;
  const x = Math.max(lane.x, prevEnd + GAP, Math.min(c.x - width / 2, lane.x + lane.width - width));
  const titles = c.marks.map((m) => m.label);
  return {
    x: x + width / 2,
    text,
    state: c.marks.map((m) => m.state).reduce(worse),
    count: clusterCount(c),
    title:
      titles.length > 10
        ? `${titles.slice(0, 10).join('\n')}\n… ${titles.length - 10} more`
        : titles.join('\n'),
    box: { x, y: lane.y, width, height: lane.height },
  };
}

/**
 * The lane's glyphs: marks sorted by x, each merged into the glyph before it when their boxes would touch
 * (the merged glyph counts them all and takes the worst state's colour), kept within [left, right].
 */
export function laneGlyphs(marks: readonly MarkInput[], lane: Box): Glyph[] {
  const sorted = [...marks].sort((a, b) => a.x - b.x);
  const clusters: Cluster[] = [];
  for (const m of sorted) {
    const prev = clusters[clusters.length - 1];
    if (prev && m.x - prev.x < textWidth(glyphText(prev), GLYPH_FONT) + GAP) prev.marks.push(m);
    else clusters.push({ x: m.x, marks: [m] });
  }
  const glyphs: Glyph[] = [];
  const drawn: Cluster[] = [];
  for (const c of clusters) {
    const g = glyphOf(c, lane, glyphs[glyphs.length - 1]);
    // one pushed past the lane's end by the glyph before it joins that glyph
    if (g.box.x + g.box.width > lane.x + lane.width + GAP && drawn.length > 0) {
      const prev = drawn[drawn.length - 1]!;
      prev.marks.push(...c.marks);
      glyphs[glyphs.length - 1] = glyphOf(prev, lane, glyphs[glyphs.length - 2]);
    } else {
      glyphs.push(g);
      drawn.push(c);
    }
  }
  return glyphs;
}

const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Where a label may go, best first: just above its y (or at the plot's top, then further down), then below it. */
function labelRows(l: LabelInput, plot: Box, height: number): number[] {
  const top = plot.y + GAP;
  if (l.at !== 'top') return [Math.max(top, l.at - GAP - height), l.at + GAP];
  const rows: number[] = [];
  for (let y = top; y + height <= plot.y + plot.height; y += height) rows.push(y);
  return rows.length > 0 ? rows : [top];
}

/**
 * The plot's labels, right-aligned (at `right`, else the plot's right edge), each just above the y it belongs
 * to (or at the plot's top), never above the plot, and off the plotted lines (`obstacles`, boxes they cover): a
 * 'top' label goes down the plot to the first row clear of them. A label that would meet one placed before it
 * goes below its y instead, else to the left of the one it would meet; one with no row clear of the lines
 * keeps its first row free of labels.
 */
export function placeLabels(
  labels: readonly LabelInput[],
  plot: Box,
  obstacles: readonly Box[] = [],
): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  for (const l of labels) {
    const width = textWidth(l.text, l.fontSize);
    const height = l.fontSize + GAP;
    const right = Math.min(l.right ?? plot.x + plot.width, plot.x + plot.width) - GAP;
    const x = Math.max(plot.x, right - width);
    const free = (b: Box) => !placed.some((p) => intersects(p.box, b));
    const clear = (b: Box) => free(b) && !obstacles.some((o) => intersects(o, b));
    const candidates = labelRows(l, plot, height).map((y): Box => ({ x, y, width, height }));
    // else beside (to the left of) the labels it would meet, just above its y
    const blocking = placed.filter((p) => !free(candidates[0]!) && intersects(p.box, candidates[0]!));
    const left = Math.min(...blocking.map((p) => p.box.x)) - GAP - width;
    const box = candidates.find(clear) ??
      candidates.find(free) ?? { ...candidates[0]!, x: Math.max(plot.x, left) };
    placed.push({ id: l.id, text: l.text, box });
  }
  return placed;
}

/**
 * The boxes a plotted line covers, one per stretch between two consecutive points with values (pixels), grown
 * by `pad` (half its stroke and a gap). A monotone curve stays within its points' values, so the box holds it.
 */
export function lineBoxes(points: ReadonlyArray<{ x: number; y: number | null }>, pad = GAP + 1): Box[] {
  const boxes: Box[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (a.y === null || b.y === null) continue;
    const y = Math.min(a.y, b.y) - pad;
    boxes.push({ x: a.x - pad, y, width: b.x - a.x + 2 * pad, height: Math.abs(a.y - b.y) + 2 * pad });
  }
  return boxes;
}

/** A mark's line from the plot's top to its bottom, less the stretches where it would cross a label. */
export function lineSegments(x: number, plot: Box, labels: readonly PlacedLabel[]) {
  const cuts = labels
    .filter((l) => x >= l.box.x - GAP && x <= l.box.x + l.box.width + GAP)
    .map((l) => ({ from: l.box.y - GAP, to: l.box.y + l.box.height + GAP }))
    .sort((a, b) => a.from - b.from);
  const segments: Array<{ y1: number; y2: number }> = [];
  let y = plot.y;
  for (const c of cuts) {
    if (c.from > y) segments.push({ y1: y, y2: c.from });
    y = Math.max(y, c.to);
  }
  if (plot.y + plot.height > y) segments.push({ y1: y, y2: plot.y + plot.height });
  return segments;
}

/**
 * Where a chart's marks and labels go so that none covers another: the marks' glyphs in a lane of their own
 * above the plot (merged with a count where they would touch), the labels inside the plot off the plotted lines
 * (`obstacles`), and each mark's line interrupted where it would cross a label.
 */
export function layoutMarks(
  marks: readonly MarkInput[],
  plot: Box,
  labelInputs: readonly LabelInput[],
  obstacles: readonly Box[] = [],
): MarkLayout {
  const lane: Box = {
    x: plot.x,
    y: plot.y - GLYPH_FONT - GAP - 1,
    width: plot.width,
    height: GLYPH_FONT + GAP,
  };
  const labels = placeLabels(labelInputs, plot, obstacles);
  return {
    glyphs: laneGlyphs(marks, lane),
    lines: marks.map((mark) => ({ mark, segments: lineSegments(mark.x, plot, labels) })),
    labels,
  };
}
