import { fmtTime } from '../format';

/** Data that begins within this of a window's start covers the window (one bucket of the finest resolution). */
const WHOLE_WINDOW_SLACK_MS = 10_000;

const minutes = (ms: number) => `${Math.round(ms / 60_000)}m`;

/** A span as an alert prints it: seconds under 2 minutes ("45s", "1m 30s"), whole minutes above. */
export function fmtSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 120) return s % 60 === 0 ? '1m' : `1m ${s % 60}s`;
  return minutes(ms);
}

/** Whether data that began at `dataStart` reaches back to the start of the `windowMs` before `now`. */
export const coversWindow = (windowMs: number, dataStart: number, now: number): boolean =>
  dataStart <= now - windowMs + WHOLE_WINDOW_SLACK_MS;

/** "data since 12:01 UTC". */
export const dataSince = (dataStart: number) => `data since ${fmtTime(dataStart, false, 'utc')} UTC`;

/**
 * The span a number over `windowMs` before `now` really covers, as its summary prints it: the window ("60m")
 * when its data reaches back to the window's start, else the time since the data began and when that was
 * ("4m (data since 12:01 UTC)"): a value over 4 minutes of data does not read as an hour's.
 */
export function windowSpan(
  windowMs: number,
  dataStart: number | null | undefined,
  now: number,
  { since = true } = {},
): string {
  if (dataStart == null || coversWindow(windowMs, dataStart, now)) {
    return minutes(windowMs);
  }
  const span = fmtSpan(now - dataStart);
  return since ? `${span} (${dataSince(dataStart)})` : span;
}
