/** Display formatting shared by server and client components. */

export const TARGET_EFFICIENCY = 0.8;
export const MIN_RETRIES_FOR_EFFICIENCY = 20;

export function fmtPct(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${(v * 100).toFixed(digits)}%`;
}

/**
 * A share that is never rounded to a false figure: 0 only when nothing, "<0.1%" when tiny, one decimal below
 * 10% (17 errors in 4,000 calls read "0.4%", not "0%"), whole percents above; 100% only when all.
 */
export function fmtShare(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v <= 0) return '0%';
  if (v >= 1) return '100%';
  if (v < 0.001) return '<0.1%';
  if (v > 0.999) return '>99.9%';
  if (v < 0.1) return `${(v * 100).toFixed(1)}%`;
  return `${Math.min(99, Math.round(v * 100))}%`;
}

export function fmtNumber(v: number, digits = 0): string {
  if (!Number.isFinite(v)) return '–';
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function fmtSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  return fmtMs(s * 1000);
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h ${Math.round((ms % 3_600_000) / 60_000)}m`;
  return `${Math.floor(ms / 86_400_000)}d ${Math.round((ms % 86_400_000) / 3_600_000)}h`;
}

/** A duration at seconds resolution (time in state, "ago"). */
export function fmtElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return '<1 s';
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`;
  return fmtMs(Math.floor(ms / 1000) * 1000);
}

/**
 * Times are shown in the browser's zone (`'local'`, as the charts show them); `'utc'` is for text rendered on
 * the server, which knows no viewer's zone (`ui/local-time.tsx` shows it until the browser takes over).
 */
export type TimeZoneMode = 'local' | 'utc';

const pad = (n: number) => String(n).padStart(2, '0');

function fields(t: number, zone: TimeZoneMode) {
  const d = new Date(t);
  return zone === 'utc'
    ? {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        h: d.getUTCHours(),
        m: d.getUTCMinutes(),
        s: d.getUTCSeconds(),
      }
    : {
        year: d.getFullYear(),
        month: d.getMonth() + 1,
        day: d.getDate(),
        h: d.getHours(),
        m: d.getMinutes(),
        s: d.getSeconds(),
      };
}

export function fmtTime(t: number, withSeconds = true, zone: TimeZoneMode = 'local'): string {
  const f = fields(t, zone);
  return `${pad(f.h)}:${pad(f.m)}${withSeconds ? `:${pad(f.s)}` : ''}`;
}

export function fmtDateTime(t: number, zone: TimeZoneMode = 'local'): string {
  const f = fields(t, zone);
  return `${f.year}-${pad(f.month)}-${pad(f.day)} ${fmtTime(t, true, zone)}`;
}

/** Up to this span an axis shows seconds (its ticks can be under a minute apart). */
const AXIS_SECONDS_MS = 10 * 60_000;

export function fmtAxisTime(t: number, spanMs: number, zone: TimeZoneMode = 'local'): string {
  const f = fields(t, zone);
  if (spanMs > 2 * 86_400_000) return `${pad(f.month)}-${pad(f.day)} ${pad(f.h)}h`;
  if (spanMs <= AXIS_SECONDS_MS) return fmtTime(t, true, zone);
  return `${pad(f.h)}:${pad(f.m)}`;
}

export const STATE_LABEL: Record<string, string> = { closed: 'Closed', open: 'Open', half_open: 'Half-open' };

/** The efficiency headline: "insufficient data" below the minimum volume, never a scary number. */
export function efficiencyVerdict(
  successful: number,
  total: number,
): {
  ratio: number | null;
  sufficient: boolean;
  meetsTarget: boolean | null;
} {
  const ratio = total > 0 ? successful / total : null;
  const sufficient = total >= MIN_RETRIES_FOR_EFFICIENCY;
  return { ratio, sufficient, meetsTarget: sufficient && ratio !== null ? ratio >= TARGET_EFFICIENCY : null };
}
