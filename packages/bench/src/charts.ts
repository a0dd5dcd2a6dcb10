/** Hand-written SVG charts: no chart dependency, deterministic output. */

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

export const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A palette that reads on light and dark backgrounds; the highlighted series gets the strong colour. */
export const COLORS = {
  highlight: '#d9480f',
  oracle: '#868e96',
  others: ['#4263eb', '#1098ad', '#37b24d', '#f59f00', '#ae3ec9', '#5c7cfa', '#20c997', '#e64980'],
};

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Text drawn after the bar (defaults to the formatted value). */
  readonly text?: string;
  readonly color?: string;
}

export interface BarChartOptions {
  readonly title: string;
  readonly subtitle?: string;
  readonly bars: readonly Bar[];
  /** A logarithmic axis (values ≤ 0 are drawn as empty bars). */
  readonly log?: boolean;
  readonly format?: (value: number) => string;
  readonly width?: number;
}

/** A horizontal bar chart, one bar per row. */
export function barChart(o: BarChartOptions): string {
  const width = o.width ?? 760;
  const format = o.format ?? ((v: number) => String(Math.round(v)));
  const labelWidth = Math.max(120, Math.ceil(Math.max(...o.bars.map((b) => b.label.length)) * 6.8) + 16);
  const valueWidth = 120;
  const rowHeight = 26;
  const top = o.subtitle ? 64 : 46;
  const plotWidth = width - labelWidth - valueWidth - 20;
  const height = top + o.bars.length * rowHeight + 16;
  const max = Math.max(...o.bars.map((b) => b.value), 0);
  const minPositive = Math.min(...o.bars.map((b) => b.value).filter((v) => v > 0), max || 1);
  const floor = o.log ? 10 ** Math.floor(Math.log10(minPositive)) : 0;
  const scale = (v: number) => {
    if (max <= 0) return 0;
    if (!o.log) return (v / max) * plotWidth;
    if (v <= 0) return 0;
    const span = Math.log10(max) - Math.log10(floor);
    return span <= 0 ? plotWidth : ((Math.log10(v) - Math.log10(floor)) / span) * plotWidth;
  };
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(o.title)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" ${FONT} font-size="16" font-weight="600" fill="#212529">${escapeXml(o.title)}</text>`,
  ];
  if (o.subtitle) {
    parts.push(`<text x="16" y="46" ${FONT} font-size="12" fill="#495057">${escapeXml(o.subtitle)}</text>`);
  }
  o.bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const w = Math.max(bar.value > 0 ? 1 : 0, scale(bar.value));
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 17}" ${FONT} font-size="12" text-anchor="end" fill="#212529">${escapeXml(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" rx="2" fill="${bar.color ?? COLORS.others[0]}"/>`,
      `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 17}" ${FONT} font-size="12" fill="#212529">${escapeXml(bar.text ?? format(bar.value))}</text>`,
    );
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}

export interface GroupedChartOptions {
  readonly title: string;
  readonly subtitle?: string;
  readonly groups: readonly string[];
  readonly series: readonly {
    readonly name: string;
    readonly color: string;
    readonly values: readonly number[];
  }[];
  /** The value axis: [min, max]. */
  readonly domain: readonly [number, number];
  readonly format: (value: number) => string;
  readonly width?: number;
}

/** Splits `text` into lines of at most `max` characters at spaces (a longer word keeps its own line). */
export function wrapText(text: string, max: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 1 + word.length <= max)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A vertical grouped bar chart: one group per category, one bar per series, with a legend. */
export function groupedBarChart(o: GroupedChartOptions): string {
  const width = o.width ?? 980;
  const left = 56;
  const right = 16;
  const top = o.subtitle ? 70 : 52;
  const plotHeight = 260;
  const legendRows = Math.ceil(o.series.length / 4);
  const plotWidth = width - left - right;
  const groupWidth = plotWidth / o.groups.length;
  const labelLines = Math.max(1, ...o.groups.map((g) => wrapText(g, Math.floor(groupWidth / 6.8)).length));
  const height = top + plotHeight + 44 + (labelLines - 1) * 14 + legendRows * 20 + 12;
  const barWidth = (groupWidth * 0.84) / o.series.length;
  const [lo, hi] = o.domain;
  const y = (v: number) => top + plotHeight - ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(o.title)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" ${FONT} font-size="16" font-weight="600" fill="#212529">${escapeXml(o.title)}</text>`,
  ];
  if (o.subtitle) {
    parts.push(`<text x="16" y="46" ${FONT} font-size="12" fill="#495057">${escapeXml(o.subtitle)}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const v = lo + ((hi - lo) * i) / 5;
    const yy = y(v);
    parts.push(
      `<line x1="${left}" y1="${yy.toFixed(1)}" x2="${width - right}" y2="${yy.toFixed(1)}" stroke="#dee2e6" stroke-width="1"/>`,
      `<text x="${left - 6}" y="${(yy + 4).toFixed(1)}" ${FONT} font-size="11" text-anchor="end" fill="#495057">${escapeXml(o.format(v))}</text>`,
    );
  }
  o.groups.forEach((group, g) => {
    const gx = left + g * groupWidth + groupWidth * 0.08;
    o.series.forEach((s, i) => {
      const v = s.values[g] ?? 0;
      const x = gx + i * barWidth;
      const yy = y(v);
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${yy.toFixed(1)}" width="${Math.max(1, barWidth - 2).toFixed(1)}" height="${(top + plotHeight - yy).toFixed(1)}" fill="${s.color}"><title>${escapeXml(`${s.name}, ${group}: ${o.format(v)}`)}</title></rect>`,
      );
    });
    const cx = (left + g * groupWidth + groupWidth / 2).toFixed(1);
    wrapText(group, Math.floor(groupWidth / 6.8)).forEach((line, i) => {
      parts.push(
        `<text x="${cx}" y="${top + plotHeight + 18 + i * 14}" ${FONT} font-size="12" text-anchor="middle" fill="#212529">${escapeXml(line)}</text>`,
      );
    });
  });
  o.series.forEach((s, i) => {
    const col = i % 4;
    const row = Math.floor(i / 4);
    const x = left + col * ((width - left - right) / 4);
    const yy = top + plotHeight + 40 + (labelLines - 1) * 14 + row * 20;
    parts.push(
      `<rect x="${x}" y="${yy - 10}" width="12" height="12" fill="${s.color}"/>`,
      `<text x="${x + 18}" y="${yy}" ${FONT} font-size="12" fill="#212529">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}

/** Round tick values (multiples of 1, 2 or 5 × 10^n) from `min` to `max`, about `count` of them. */
export function niceTicks(min: number, max: number, count: number): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step) ticks.push(Number(v.toFixed(10)));
  return ticks;
}

export interface LineChartOptions {
  readonly title: string;
  readonly subtitle?: string;
  /** x values shared by every series (e.g. seconds since the start). */
  readonly x: readonly number[];
  readonly series: readonly {
    readonly name: string;
    readonly color: string;
    readonly values: readonly number[];
    /** Drawn thicker (the highlighted policy). */
    readonly strong?: boolean;
  }[];
  /** Shaded x ranges with a label (a load spike). */
  readonly bands?: readonly { readonly from: number; readonly to: number; readonly label: string }[];
  readonly xLabel: string;
  readonly format: (value: number) => string;
  readonly width?: number;
}

/** A line chart: one polyline per series over a shared x axis, y from 0, with a legend. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 980;
  const left = 56;
  const right = 16;
  const top = o.subtitle ? 70 : 52;
  const plotHeight = 260;
  const legendRows = Math.ceil(o.series.length / 4);
  const height = top + plotHeight + 52 + legendRows * 20 + 12;
  const plotWidth = width - left - right;
  const xMin = Math.min(...o.x);
  const xMax = Math.max(...o.x);
  const yMax = Math.max(1, ...o.series.flatMap((s) => s.values)) * 1.05;
  const px = (v: number) => left + (xMax > xMin ? ((v - xMin) / (xMax - xMin)) * plotWidth : 0);
  const py = (v: number) => top + plotHeight - (Math.max(0, v) / yMax) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(o.title)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" ${FONT} font-size="16" font-weight="600" fill="#212529">${escapeXml(o.title)}</text>`,
  ];
  if (o.subtitle) {
    parts.push(`<text x="16" y="46" ${FONT} font-size="12" fill="#495057">${escapeXml(o.subtitle)}</text>`);
  }
  for (const band of o.bands ?? []) {
    const x1 = px(Math.max(xMin, band.from));
    const x2 = px(Math.min(xMax, band.to));
    parts.push(
      `<rect x="${x1.toFixed(1)}" y="${top}" width="${Math.max(0, x2 - x1).toFixed(1)}" height="${plotHeight}" fill="#fff3bf"/>`,
      `<text x="${((x1 + x2) / 2).toFixed(1)}" y="${top + 14}" ${FONT} font-size="11" text-anchor="middle" fill="#495057">${escapeXml(band.label)}</text>`,
    );
  }
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5;
    const yy = py(v);
    parts.push(
      `<line x1="${left}" y1="${yy.toFixed(1)}" x2="${width - right}" y2="${yy.toFixed(1)}" stroke="#dee2e6" stroke-width="1"/>`,
      `<text x="${left - 6}" y="${(yy + 4).toFixed(1)}" ${FONT} font-size="11" text-anchor="end" fill="#495057">${escapeXml(o.format(v))}</text>`,
    );
  }
  for (const v of niceTicks(xMin, xMax, 10)) {
    parts.push(
      `<text x="${px(v).toFixed(1)}" y="${top + plotHeight + 16}" ${FONT} font-size="11" text-anchor="middle" fill="#495057">${Math.round(v)}</text>`,
    );
  }
  parts.push(
    `<text x="${(left + plotWidth / 2).toFixed(1)}" y="${top + plotHeight + 32}" ${FONT} font-size="12" text-anchor="middle" fill="#212529">${escapeXml(o.xLabel)}</text>`,
  );
  for (const s of o.series) {
    const points = s.values.map((v, i) => `${px(o.x[i] ?? 0).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="${s.strong ? 3 : 1.5}" stroke-linejoin="round"><title>${escapeXml(s.name)}</title></polyline>`,
    );
  }
  o.series.forEach((s, i) => {
    const col = i % 4;
    const row = Math.floor(i / 4);
    const x = left + col * ((width - left - right) / 4);
    const yy = top + plotHeight + 52 + row * 20;
    parts.push(
      `<rect x="${x}" y="${yy - 10}" width="12" height="12" fill="${s.color}"/>`,
      `<text x="${x + 18}" y="${yy}" ${FONT} font-size="12" fill="#212529">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}
