'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useLive } from './live/live-provider';

const pad = (n: number) => String(n).padStart(2, '0');
/** Epoch ms → the value of a `datetime-local` input (the browser's time zone). */
const toLocalInput = (t: number) => {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const RANGES = ['15m', '1h', '6h', '24h', '7d'] as const;
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
  // Client-only (the browser's time zone): filled after mount, so server and client render the same HTML.
  useEffect(() => {
    const f = Number(params.get('from'));
    const t = Number(params.get('to'));
    setFrom(custom && f > 0 ? toLocalInput(f) : toLocalInput(Date.now() - 3_600_000));
    setTo(custom && t > 0 ? toLocalInput(t) : toLocalInput(Date.now()));
  }, [params, custom]);
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
    if (!(Number.isFinite(f) && Number.isFinite(t) && t > f)) return;
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
            onChange={(e) => setFrom(e.target.value)}
          />
          <span>–</span>
          <input type="datetime-local" aria-label="to" value={to} onChange={(e) => setTo(e.target.value)} />
          <button type="submit" className={range === 'custom' ? 'active' : ''}>
            {range === 'custom' ? 'custom ✓' : 'apply'}
          </button>
        </form>
      </div>
    </div>
  );
}
