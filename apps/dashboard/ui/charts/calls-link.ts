import type { CompareBy } from '@/lib/data/types';

/** What a click on a chart point opens on the Calls page, besides the bucket's time range. */
export type CallsLink = Readonly<Record<string, string>>;

/** The page filters a chart's link keeps (the Calls page's own filters). */
const KEPT = ['service', 'server', 'tool', 'variant'] as const;

/**
 * The Calls page for one bucket of a time chart, `[t, t + stepMs)`: the current page's filters, then `link`
 * (what the point stands for: `only`, a compared group...), which wins over a page filter of the same name.
 */
export function callsHref(
  params: Pick<URLSearchParams, 'get'>,
  t: number,
  stepMs: number,
  link: CallsLink = {},
): string {
  const next = new URLSearchParams();
  for (const k of KEPT) {
    const v = params.get(k);
    if (v) next.set(k, v);
  }
  next.set('from', String(t));
  next.set('to', String(t + stepMs));
  for (const [k, v] of Object.entries(link)) next.set(k, v);
  return `/calls?${next}`;
}

/**
 * The Calls filter of a compare group: its service, server or variant. None for a group the Calls page cannot
 * filter on: an instance (calls carry none), or the group without a value ('', "(none)").
 */
export function compareGroupLink(by: CompareBy, key: string): CallsLink {
  return by !== 'instance' && key !== '' ? { [by]: key } : {};
}
