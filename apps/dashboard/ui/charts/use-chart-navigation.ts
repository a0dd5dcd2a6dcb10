'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useRef, useState } from 'react';
import type { MouseHandlerDataParam } from 'recharts';
import { type CallsLink, callsHref as callsHrefFor } from './calls-link';

const label = (s: MouseHandlerDataParam): number | undefined =>
  typeof s.activeLabel === 'number'
    ? s.activeLabel
    : s.activeLabel !== undefined && s.activeLabel !== '' && Number.isFinite(Number(s.activeLabel))
      ? Number(s.activeLabel)
      : undefined;

/**
 * Brush-to-zoom and click-to-calls for a time chart (Recharts' highlight-zoom pattern): dragging across the
 * chart sets `from`/`to` in the URL (the custom range every page reads); a click without a drag opens the
 * Calls page for that bucket with the page's filters and `link`. With several lines, `pointProps(group)` on a
 * line's `activeDot` adds that line's filter to the link when the click is on its point.
 */
export function useChartNavigation(stepMs: number, link: CallsLink = {}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // the drag's start in a ref: a fast click's mouseup can come before the re-render after its mousedown
  const startRef = useRef<number | undefined>(undefined);
  const [start, setStart] = useState<number | undefined>();
  const [end, setEnd] = useState<number | undefined>();

  // the line whose point the press was on (several lines: compare mode), for the click's link
  const pointRef = useRef<CallsLink | undefined>(undefined);
  const callsHref = (t: number, point: CallsLink = {}): string =>
    callsHrefFor(params, t, stepMs, { ...link, ...point });

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
    /** Props of a line's `activeDot`: a click on that point opens the Calls page filtered by `group` too. */
    pointProps: (group: CallsLink) => ({
      onMouseDown: () => {
        pointRef.current = group;
      },
    }),
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
        const point = pointRef.current;
        startRef.current = undefined;
        pointRef.current = undefined;
        setStart(undefined);
        setEnd(undefined);
        if (a === undefined || t === undefined) return;
        if (t !== a) zoom(a, t);
        else router.push(callsHref(t, point));
      },
      onMouseLeave: () => {
        startRef.current = undefined;
        pointRef.current = undefined;
        setStart(undefined);
        setEnd(undefined);
      },
    },
  };
}
