'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { RANGES as RANGE_MS } from '@/lib/data/query-params';
import { useLive } from './live/live-provider';

const pad = (n: number) => String(n).padStart(2, '0');
/** Epoch ms → the value of a `datetime-local` input (the browser's time zone). */
const toLocalInput = (t: number) => {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const RANGES = ['15m', '1h', '6h', '24h', '7d'] as const;
const PRESET_MS: Readonly<Record<string, number>> = RANGE_MS;
const TITLES: Record<string, string> = {
  '/': 'Overview',
  '/breakers': 'Circuit breakers',
  '/errors': 'Errors',
  '/calls': 'Calls',
  '/experiments': 'Experiments',
  '/alerts': 'Alerts',
};

/**
 * Time-range picker (presets, or a custom `from`/`to` that a chart brush also sets) and filters, kept in the
 * URL (`?range=&from=&to=&service=&server=&tool=&variant=`).
 */
export default function FilterBar(props: {
  services: string[];
  servers: string[];
  tools: string[];
  variants: string[];
}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { connected } = useLive();
  const custom = params.get('from') !== null && params.get('to') !== null;
  const range = custom ? 'custom' : (params.get('range') ?? '1h');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  // edited since they showed the range in effect: only then does "apply" switch to a custom range
  const [dirty, setDirty] = useState(false);
  // Client-only (the browser's time zone): filled after mount, so server and client render the same HTML.
  // They show the range in effect: the custom one, else the preset's (15m shows the last 15 minutes).
  useEffect(() => {
    const f = Number(params.get('from'));
    const t = Number(params.get('to'));
    const now = Date.now();
    const preset = PRESET_MS[range] ?? PRESET_MS['1h']!;
    setFrom(custom && f > 0 ? toLocalInput(f) : toLocalInput(now - preset));
    setTo(custom && t > 0 ? toLocalInput(t) : toLocalInput(now));
    setDirty(false);
  }, [params, custom, range]);
  const go = (next: URLSearchParams) => {
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname);
  };
  const set = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    if (key === 'range') {
      next.delete('from');
      next.delete('to');
    }
    go(next);
  };
  const applyCustom = () => {
    const f = new Date(from).getTime();
    const t = new Date(to).getTime();
    if (!dirty || !(Number.isFinite(f) && Number.isFinite(t) && t > f)) return;
    const next = new URLSearchParams(params.toString());
    next.set('from', String(f));
    next.set('to', String(t));
    next.delete('range');
    go(next);
  };
  const select = (key: 'service' | 'server' | 'tool' | 'variant', options: string[]) => {
    const current = params.get(key) ?? '';
    const all = current && !options.includes(current) ? [current, ...options] : options;
    return (
      <select aria-label={key} value={current} onChange={(e) => set(key, e.target.value || undefined)}>
        <option value="">all {key}s</option>
        {all.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  };
  return (
    <div className="topbar">
      <h1>{TITLES[pathname] ?? 'mcp-resilience'}</h1>
      <div className="filters">
        <span className={`live-dot${connected ? ' on' : ''}`} data-testid="live-status">
          {connected ? 'live' : 'offline'}
        </span>
        {select('service', props.services)}
        {select('server', props.servers)}
        {select('tool', props.tools)}
        {props.variants.length > 0 || params.get('variant') ? select('variant', props.variants) : null}
        <fieldset className="ranges" aria-label="time range">
          {RANGES.map((r) => (
            <button
              key={r}
              type="button"
              className={r === range ? 'active' : ''}
              onClick={() => set('range', r)}
            >
              {r}
            </button>
          ))}
        </fieldset>
        <form
          className="range-form"
          data-testid="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            applyCustom();
          }}
        >
          <input
            type="datetime-local"
            aria-label="from"
            value={from}
            onChange={(e) => {
              setFrom(e.target.value);
              setDirty(true);
            }}
          />
          <span>–</span>
          <input
            type="datetime-local"
            aria-label="to"
            value={to}
            onChange={(e) => {
              setTo(e.target.value);
              setDirty(true);
            }}
          />
          <button
            type="submit"
            className={range === 'custom' && !dirty ? 'active' : ''}
            disabled={!dirty}
            title={dirty ? 'show this range' : 'edit the dates to choose a custom range'}
          >
            {range === 'custom' && !dirty ? 'custom ✓' : 'apply'}
          </button>
        </form>
      </div>
    </div>
  );
}
