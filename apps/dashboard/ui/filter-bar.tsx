'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useLive } from './live/live-provider';

const RANGES = ['15m', '1h', '6h', '24h', '7d'] as const;
const TITLES: Record<string, string> = {
  '/': 'Overview',
  '/breakers': 'Circuit breakers',
  '/errors': 'Errors',
  '/calls': 'Calls',
  '/alerts': 'Alerts',
};

/** Time-range picker and filters, kept in the URL (`?range=&service=&server=&tool=`). */
export default function FilterBar(props: { services: string[]; servers: string[]; tools: string[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { connected } = useLive();
  const range = params.get('range') ?? '1h';
  const set = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname);
  };
  const select = (key: 'service' | 'server' | 'tool', options: string[]) => {
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
      </div>
    </div>
  );
}
