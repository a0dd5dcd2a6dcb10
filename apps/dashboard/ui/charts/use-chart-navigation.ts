'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useRef, useState } from 'react';
import type { MouseHandlerDataParam } from 'recharts';

/** What a click on a chart point opens on the Calls page, besides the bucket's time range. */
export type CallsLink = Readonly<Record<string, string>>;

const label = (s: MouseHandlerDataParam): number | undefined =>
  typeof s.activeLabel === 'number'
    ? s.activeLabel
    : s.activeLabel !== undefined && s.activeLabel !== '' && Number.isFinite(Number(s.activeLabel))
      ? Number(s.activeLabel)
      : undefined;

/**
 * Brush-to-zoom and click-to-calls for a time chart (Recharts' highlight-zoom pattern): dragging across the
 * chart sets `from`/`to` in the URL (the custom range every page reads); a click without a drag opens the
 * Calls page for that bucket with the page's filters and `link`.
 */
export function useChartNavigation(stepMs: number, link: CallsLink = {}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // the drag's start in a ref: a fast click's mouseup can come before the re-render after its mousedown
  const startRef = useRef<number | undefined>(undefined);
  const [start, setStart] = useState<number | undefined>();
  const [end, setEnd] = useState<number | undefined>();

  const callsHref = (t: number): string => {
    const next = new URLSearchParams();
    for (const k of ['service', 'server', 'tool', 'variant']) {
      const v = params.get(k);
      if (v) next.set(k, v);
    }
    next.set('from', String(t));
    next.set('to', String(t + stepMs));
    for (const [k, v] of Object.entries(link)) next.set(k, v);
    return `/calls?${next}`;
  };

  const zoom = (a: number, b: number) => {
    const next = new URLSearchParams(params.toString());
    next.set('from', String(Math.min(a, b)));
    next.set('to', String(Math.max(a, b) + stepMs));
    next.delete('range');
    router.push(`${pathname}?${next}`);
  };

  return {
    selection: start !== undefined && end !== undefined && end !== start ? { x1: start, x2: end } : undefined,
    callsHref,
    handlers: {
      onMouseDown: (s: MouseHandlerDataParam) => {
        const t = label(s);
        startRef.current = t;
        setStart(t);
        setEnd(t);
      },
      onMouseMove: (s: MouseHandlerDataParam) => {
        if (startRef.current !== undefined) setEnd(label(s) ?? end);
      },
      onMouseUp: (s: MouseHandlerDataParam) => {
        const t = label(s) ?? end;
        const a = startRef.current;
        startRef.current = undefined;
        setStart(undefined);
        setEnd(undefined);
        if (a === undefined || t === undefined) return;
        if (t !== a) zoom(a, t);
        else router.push(callsHref(t));
      },
      onMouseLeave: () => {
        startRef.current = undefined;
        setStart(undefined);
        setEnd(undefined);
      },
    },
  };
}
