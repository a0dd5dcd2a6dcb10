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
      <main className="panel">
        Spans are not stored by this data source: look the traces up in your tracing backend (Jaeger,
        Tempo...).
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
