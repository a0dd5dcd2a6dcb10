import type { Metadata } from 'next';
import Link from 'next/link';
import { fetchRecentCalls, sourceCapabilities } from '@/lib/data/fetchers';
import { type PageSearchParams, parseCallsQuery } from '@/lib/data/query-params';
import type { CallsQuery } from '@/lib/data/types';
import { fmtNumber } from '@/lib/format';
import CallList from '@/ui/calls/call-list';
import LocalTime from '@/ui/local-time';

export const metadata: Metadata = { title: 'Calls' };

/** What is shown of how many stored calls match, how many more, and the neighbouring pages. */
function CallsShown(props: {
  total: number;
  offset: number;
  shown: number;
  pageNumber: number;
  params: URLSearchParams;
}) {
  const { total, offset, shown, pageNumber, params } = props;
  const more = Math.max(0, total - offset - shown);
  const href = (n: number) => {
    const p = new URLSearchParams(params);
    if (n > 1) p.set('page', String(n));
    else p.delete('page');
    return `/calls?${p}`;
  };
  if (total === 0) return null;
  return (
    <p className="muted" data-testid="calls-shown" style={{ fontSize: 13 }}>
      Showing {fmtNumber(Math.min(total, offset + 1))}–{fmtNumber(offset + shown)} of {fmtNumber(total)}{' '}
      stored calls
      {more > 0 ? (
        <>
          {' · '}
          <b data-testid="calls-more">{fmtNumber(more)} more</b>
        </>
      ) : null}
      {pageNumber > 1 ? (
        <>
          {' · '}
          <Link href={href(pageNumber - 1)} rel="prev">
            ← newer
          </Link>
        </>
      ) : null}
      {more > 0 ? (
        <>
          {' · '}
          <Link href={href(pageNumber + 1)} rel="next">
            older →
          </Link>
        </>
      ) : null}
    </p>
  );
}

/** The `without=` chip's value: what the calls carry none of ("tool and method"). */
function withoutLabel(query: CallsQuery): string | undefined {
  const none = (['tool', 'method'] as const).filter((d) => query.filters[d] === '');
  return none.length === 0 ? undefined : none.join(' and ');
}

/** The filters a link set beyond the page's own (its bucket, method, outcome, class, type): each a removable chip. */
function filterChips(sp: PageSearchParams, query: CallsQuery) {
  const window = Boolean(sp.from && sp.to);
  return (
    [
      ['from', 'since', window ? <LocalTime key="from" t={query.from} format="datetime" /> : undefined],
      ['to', 'until', window ? <LocalTime key="to" t={query.to} format="datetime" /> : undefined],
      ['method', 'method', query.filters.method || undefined],
      ['without', 'without', withoutLabel(query)],
      ['outcome', 'outcome', query.outcome],
      ['class', 'class', query.errorClass],
      ['type', 'type', query.errorType],
    ] as const
  ).filter(([, , v]) => v !== undefined);
}

/** Failed, rejected or retried calls; chart points link here with their bucket, server and class. */
export default async function CallsPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const query = parseCallsQuery(sp, Date.now());
  if (!sourceCapabilities().traces) {
    return (
      <main className="panel" data-testid="traces-elsewhere">
        <h2>Calls and attempt waterfalls need spans</h2>
        <p>
          Traces are in your tracing backend (Jaeger, Tempo...): this dashboard reads metrics from Prometheus
          (<code>DASHBOARD_SOURCE=prometheus</code>) and stores no spans. Look a call up there by its trace:
          the call span is <code>mcp.resilience.call</code>, with one child span per attempt and a{' '}
          <code>mcp.resilience.classification</code> event on each failed attempt.
        </p>
      </main>
    );
  }
  const rawPage = typeof sp.page === 'string' && /^\d{1,6}$/.test(sp.page) ? Number(sp.page) : 1;
  const pageNumber = Math.max(1, rawPage);
  const { calls, total, offset } = await fetchRecentCalls(query, pageNumber);
  const params = () =>
    new URLSearchParams(Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const link = (value: string | undefined, label: string) => {
    const p = params();
    if (value) p.set('only', value);
    else p.delete('only');
    p.delete('page');
    return (
      <Link href={`/calls?${p}`} className={`badge${query.only === value ? ' success' : ''}`}>
        {label}
      </Link>
    );
  };
  const chips = filterChips(sp, query);
  return (
    <main className="panel">
      <h2>
        Recent failed, rejected or retried calls · {link(undefined, 'all')} {link('failed', 'failed')}{' '}
        {link('retried', 'retried')}
      </h2>
      {chips.length > 0 ? (
        <p data-testid="calls-filters" className="muted" style={{ fontSize: 13 }}>
          Showing{' '}
          {chips.map(([param, label, v]) => {
            const p = params();
            p.delete(param);
            if (param === 'from' || param === 'to') {
              p.delete('from');
              p.delete('to');
            }
            return (
              <span key={param} style={{ marginRight: 8 }}>
                {label} <b>{v}</b>{' '}
                <Link href={`/calls?${p}`} aria-label={`remove ${label}`}>
                  ×
                </Link>
              </span>
            );
          })}
        </p>
      ) : null}
      <CallList calls={calls} />
      <CallsShown
        total={total}
        offset={offset}
        shown={calls.length}
        pageNumber={pageNumber}
        params={params()}
      />
    </main>
  );
}
