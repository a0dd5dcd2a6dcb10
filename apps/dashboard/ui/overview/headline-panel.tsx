import { fetchHeadline } from '@/lib/data/fetchers';
import type { TimeQuery } from '@/lib/data/types';
import HeadlineCards from './headline-cards';

/** Server-side first paint of the headline numbers; the client component then follows the SSE stream. */
export default async function HeadlinePanel({
  query,
  rangeLabel,
  custom,
}: {
  query: TimeQuery;
  rangeLabel: string;
  custom: boolean;
}) {
  const headline = await fetchHeadline(query);
  return <HeadlineCards initial={headline} rangeLabel={rangeLabel} custom={custom} />;
}
