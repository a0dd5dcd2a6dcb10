import { describe, expect, it } from 'vitest';
import { type Box, layoutMarks, lineBoxes, type MarkInput, textWidth } from '@/ui/charts/mark-layout';

/*
 * Issue #22: breaker and alert marks piled up at the top of the charts and covered the "partial" and
 * "target 0.8" labels. The layout keeps the glyphs in a lane of their own, merges those that would touch, and
 * breaks each mark's line where it would cross a label (the Chromium check is in system/marks.system.test.ts).
 */

const plot: Box = { x: 50, y: 16, width: 400, height: 200 };
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const mark = (x: number, state = 'open', kind: MarkInput['kind'] = 'transition'): MarkInput => ({
  x,
  kind,
  state,
  label: `m${x}`,
  count: 1,
});

describe('layoutMarks', () => {
  const labels = [
    { id: 'partial', text: 'partial', fontSize: 10, at: 'top' as const },
    { id: 'line', text: 'target 0.8', fontSize: 11, at: 56 },
  ];

  it('keeps every glyph in the lane above the plot, apart from the others, counting every mark', () => {
    // 120 marks 3 px apart, the densest a range gets (one per 1/120 of it), many at the right edge
    const marks = Array.from({ length: 120 }, (_, i) => mark(plot.x + 40 + i * 3, i % 2 ? 'closed' : 'open'));
    const { glyphs } = layoutMarks(marks, plot, labels);
    expect(glyphs.reduce((s, g) => s + g.count, 0)).toBe(120);
    for (const [i, g] of glyphs.entries()) {
      expect(g.box.y + g.box.height).toBeLessThanOrEqual(plot.y);
      expect(g.box.x).toBeGreaterThanOrEqual(plot.x);
      for (const h of glyphs.slice(i + 1)) expect(overlap(g.box, h.box)).toBe(false);
    }
    expect(glyphs.some((g) => g.state === 'open' && g.count > 1 && g.text === `●${g.count}`)).toBe(true);
  });

  it('breaks a mark line where it crosses a label, and draws it everywhere else', () => {
    const marks = [mark(plot.x + plot.width - 5), mark(plot.x + 10, 'firing', 'alert')];
    const layout = layoutMarks(marks, plot, labels);
    const partial = layout.labels.find((l) => l.id === 'partial')!;
    const target = layout.labels.find((l) => l.id === 'line')!;
    expect(partial.box.x + partial.box.width).toBeLessThanOrEqual(plot.x + plot.width);
    expect(partial.box.width).toBeGreaterThanOrEqual(textWidth('partial', 10));
    expect(target.box.y + target.box.height).toBeLessThanOrEqual(56);
    const [crossing, clear] = layout.lines;
    for (const s of crossing!.segments) {
      for (const l of [partial, target]) {
        expect(overlap({ x: crossing!.mark.x, y: s.y1, width: 1, height: s.y2 - s.y1 }, l.box)).toBe(false);
      }
    }
    // it still runs from the top to the bottom of the plot between the labels
    expect(crossing!.segments.length).toBe(2);
    expect(crossing!.segments.at(-1)!.y2).toBe(plot.y + plot.height);
    expect(clear!.segments).toEqual([{ y1: plot.y, y2: plot.y + plot.height }]);
    expect(layout.glyphs.map((g) => g.text)).toEqual(['⚑', '●']);
  });

  it('puts a line label below its line when it would meet the label above it', () => {
    const layout = layoutMarks([], plot, [labels[0]!, { ...labels[1]!, at: plot.y + 8 }]);
    const [partial, target] = layout.labels;
    expect(overlap(partial!.box, target!.box)).toBe(false);
    expect(target!.box.y).toBeGreaterThanOrEqual(plot.y);
    // a line with room between it and "partial": just above it, clear of "partial"
    const low = layoutMarks([], plot, [labels[0]!, { ...labels[1]!, at: plot.y + 30 }]).labels;
    expect(overlap(low[0]!.box, low[1]!.box)).toBe(false);
    expect(low[1]!.box.y + low[1]!.box.height).toBe(plot.y + 28);
    // a line at the very top with "partial" over the whole width: left of it, inside the plot
    const narrow: Box = { ...plot, width: 60 };
    const squeezed = layoutMarks([], narrow, [labels[0]!, { ...labels[1]!, at: narrow.y + 2 }]).labels;
    expect(squeezed[1]!.box.y).toBeGreaterThanOrEqual(narrow.y);
  });

  it('keeps the labels off the plotted lines: "partial" goes down to the first row no line crosses', () => {
    // compare mode's busiest line along the top up to the right edge, another a little lower
    const right = plot.x + plot.width;
    const top = lineBoxes([
      { x: plot.x, y: plot.y },
      { x: right - 40, y: plot.y },
      { x: right, y: plot.y + 1 },
    ]);
    const second = lineBoxes([
      { x: plot.x, y: plot.y + 20 },
      { x: right, y: plot.y + 20 },
    ]);
    const obstacles = [...top, ...second];
    const [partial] = layoutMarks([], plot, [labels[0]!], obstacles).labels;
    for (const o of obstacles) expect(overlap(partial!.box, o)).toBe(false);
    expect(partial!.box.y).toBeGreaterThan(plot.y + 20);
    expect(partial!.box.x + partial!.box.width).toBeLessThanOrEqual(right);
    // without lines it stays at the top; a gap (null) in a line is no obstacle
    expect(layoutMarks([], plot, [labels[0]!]).labels[0]!.box.y).toBe(plot.y + 2);
    const gap = lineBoxes([
      { x: right - 60, y: plot.y },
      { x: right - 30, y: null },
      { x: right, y: plot.y },
    ]);
    expect(gap).toEqual([]);
    expect(layoutMarks([], plot, [labels[0]!], gap).labels[0]!.box.y).toBe(plot.y + 2);
    // the target label keeps off a line running just above its own line, going below it
    const target = { ...labels[1]!, at: plot.y + 100 };
    const over = lineBoxes([
      { x: plot.x, y: plot.y + 92 },
      { x: right, y: plot.y + 92 },
    ]);
    const [line] = layoutMarks([], plot, [target], over).labels;
    expect(line!.box.y).toBeGreaterThan(plot.y + 100);
  });

  it('keeps a label where it belongs when every row is crossed by a line', () => {
    const right = plot.x + plot.width;
    const zigzag = lineBoxes([
      { x: right - 100, y: plot.y },
      { x: right - 50, y: plot.y + plot.height },
      { x: right, y: plot.y },
    ]);
    expect(layoutMarks([], plot, [labels[0]!], zigzag).labels[0]!.box.y).toBe(plot.y + 2);
  });
});
