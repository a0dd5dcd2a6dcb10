import { fmtDateTime, fmtElapsed } from '@/lib/format';

/** "5m 3s ago" on the server (the page is re-rendered on every live refresh). */
export function fmtAgo(t: number, now = Date.now()): string {
  const d = now - t;
  if (d < 1000) return 'just now';
  return `${fmtElapsed(d)} ago`;
}

export { fmtDateTime };
