import type { Metadata } from 'next';
import Link from 'next/link';
import { fetchRecentCalls, sourceCapabilities } from '@/lib/data/fetchers';
import { type PageSearchParams, parsePageQuery } from '@/lib/data/query-params';
import CallList from '@/ui/calls/call-list';

export const metadata: Metadata = { title: 'Calls' };

export default async function CallsPage(props: { searchParams: Promise<PageSearchParams> }) {
  const sp = await props.searchParams;
  const { query } = parsePageQuery(sp, Date.now());
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
  const only = sp.only === 'failed' || sp.only === 'retried' ? sp.only : undefined;
  const calls = await fetchRecentCalls(query, only);
  const link = (value: string | undefined, label: string) => {
    const p = new URLSearchParams(
      Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    if (value) p.set('only', value);
    else p.delete('only');
    return (
      <Link href={`/calls?${p}`} className={`badge${only === value ? ' success' : ''}`}>
        {label}
      </Link>
    );
  };
  return (
    <main className="panel">
      <h2>
        Recent failed, rejected or retried calls · {link(undefined, 'all')} {link('failed', 'failed')}{' '}
        {link('retried', 'retried')}
      </h2>
      <CallList calls={calls} />
    </main>
  );
}
