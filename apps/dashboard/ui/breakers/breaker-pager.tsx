import Link from 'next/link';
import type { BreakerPage } from '@/lib/data/types';
import { fmtNumber, STATE_LABEL } from '@/lib/format';

const STATES = ['open', 'half_open', 'closed', 'stale'] as const;

/**
 * The Breakers page's filter and pages: a text filter (server or tool), state chips with their counts, what
 * is shown of how many and how many more, and links to the previous and next pages. Plain links and a GET
 * form: it works before hydration and keeps the other parameters (range, filters) of the URL.
 */
export default function BreakerPager(props: {
  page: Omit<BreakerPage, 'tiles' | 'timeline'> & { shown: number };
  params: Record<string, string>;
  match: string | undefined;
  state: (typeof STATES)[number] | undefined;
  pageNumber: number;
}) {
  const { page, params, match, state, pageNumber } = props;
  const href = (change: Record<string, string | undefined>) => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) p.delete(k);
      else p.set(k, v);
    }
    const qs = p.toString();
    return qs ? `/breakers?${qs}` : '/breakers';
  };
  const all = STATES.reduce((s, k) => s + page.counts[k], 0);
  const more = Math.max(0, page.total - page.offset - page.shown);
  const chip = (value: (typeof STATES)[number] | undefined, label: string, n: number) => (
    <Link
      key={value ?? 'all'}
      href={href({ state: value, page: undefined })}
      className={`badge${state === value ? ' success' : ''}`}
      data-testid={`breaker-filter-${value ?? 'all'}`}
    >
      {label} {fmtNumber(n)}
    </Link>
  );
  return (
    <section className="panel breaker-pager" data-testid="breaker-pager">
      <form method="get" action="/breakers" className="pager-form">
        {Object.entries(params)
          .filter(([k]) => k !== 'match' && k !== 'page')
          .map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
        <input
          type="search"
          name="match"
          defaultValue={match ?? ''}
          placeholder="filter by server or tool"
          aria-label="filter breakers by server or tool"
          maxLength={256}
        />
        <button type="submit" className="btn">
          filter
        </button>
        <span className="chips">
          {chip(undefined, 'all', all)}
          {STATES.map((s) => chip(s, s === 'stale' ? 'stale' : (STATE_LABEL[s] ?? s), page.counts[s]))}
        </span>
      </form>
      <p className="muted" data-testid="breaker-shown">
        {page.total === 0
          ? 'No breaker matches.'
          : `Showing ${fmtNumber(page.offset + 1)}–${fmtNumber(page.offset + page.shown)} of ${fmtNumber(page.total)}`}
        {more > 0 ? (
          <>
            {' · '}
            <b data-testid="breaker-more">{fmtNumber(more)} more</b>
          </>
        ) : null}
        {pageNumber > 1 ? (
          <>
            {' · '}
            <Link href={href({ page: pageNumber > 2 ? String(pageNumber - 1) : undefined })} rel="prev">
              ← previous
            </Link>
          </>
        ) : null}
        {more > 0 ? (
          <>
            {' · '}
            <Link href={href({ page: String(pageNumber + 1) })} rel="next" data-testid="breaker-next">
              next {fmtNumber(Math.min(more, page.limit))} →
            </Link>
          </>
        ) : null}
      </p>
    </section>
  );
}
