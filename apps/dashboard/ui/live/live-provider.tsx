'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { BreakerSummary, Headline } from '@/lib/data/types';

interface LiveState {
  readonly connected: boolean;
  readonly headline: Headline | null;
  /** Breaker states pushed since the page was rendered, by `server|tool`. */
  readonly breakers: Record<string, BreakerSummary | null>;
}

const LiveContext = createContext<LiveState>({ connected: false, headline: null, breakers: {} });
export const useLive = () => useContext(LiveContext);
export const breakerKey = (server: string, tool: string | null) => `${server}|${tool ?? ''}`;

const REFRESH_MIN_MS = 5_000;

/**
 * One EventSource per tab on `/api/live` with the page's range and filters: breaker transitions and headline
 * numbers arrive as events; charts are re-rendered on the server (router.refresh) at most every 5 s after new
 * data, and at once when an alert changes. Paused while the tab is hidden.
 */
export default function LiveProvider({ children }: { children: React.ReactNode }) {
  const router = useRouter();
  const params = useSearchParams();
  const [state, setState] = useState<LiveState>({ connected: false, headline: null, breakers: {} });
  const lastRefresh = useRef(Date.now());
  const pendingRefresh = useRef<ReturnType<typeof setTimeout> | null>(null);

  const qs = new URLSearchParams();
  for (const k of ['range', 'service', 'server', 'tool', 'variant']) {
    const v = params.get(k);
    if (v) qs.set(k, v);
  }
  const query = qs.toString();

  useEffect(() => {
    setState({ connected: false, headline: null, breakers: {} });
    let source: EventSource | null = null;
    const refresh = (soon: boolean) => {
      if (document.hidden) return;
      if (pendingRefresh.current) return;
      const wait = soon ? 0 : Math.max(0, lastRefresh.current + REFRESH_MIN_MS - Date.now());
      pendingRefresh.current = setTimeout(() => {
        pendingRefresh.current = null;
        lastRefresh.current = Date.now();
        router.refresh();
      }, wait);
    };
    const open = () => {
      source = new EventSource(`/api/live${query ? `?${query}` : ''}`);
      source.onopen = () => setState((s) => ({ ...s, connected: true }));
      source.onerror = () => setState((s) => ({ ...s, connected: false }));
      source.addEventListener('headline', (e) => {
        const headline = JSON.parse((e as MessageEvent).data) as Headline;
        setState((s) => ({ ...s, connected: true, headline }));
        refresh(false);
      });
      source.addEventListener('breaker', (e) => {
        const data = JSON.parse((e as MessageEvent).data) as {
          breakers: BreakerSummary[];
          removed: Array<{ server: string; tool: string | null }>;
        };
        setState((s) => {
          const breakers = { ...s.breakers };
          for (const b of data.breakers) breakers[breakerKey(b.server, b.tool)] = b;
          for (const r of data.removed) breakers[breakerKey(r.server, r.tool)] = null;
          return { ...s, breakers };
        });
      });
      source.addEventListener('alert', () => refresh(true));
    };
    const onVisibility = () => {
      if (document.hidden) {
        source?.close();
        source = null;
        setState((s) => ({ ...s, connected: false }));
      } else if (!source) {
        open();
        refresh(true);
      }
    };
    open();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      source?.close();
      if (pendingRefresh.current) clearTimeout(pendingRefresh.current);
      pendingRefresh.current = null;
    };
  }, [query, router]);

  return <LiveContext.Provider value={state}>{children}</LiveContext.Provider>;
}
