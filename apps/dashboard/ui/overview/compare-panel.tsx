import { compareChartsStart } from '@/lib/data/compare-charts-start';
import { fetchAnnotations, fetchCompare } from '@/lib/data/fetchers';
import type { CompareBy, TimeQuery } from '@/lib/data/types';
import BucketNote from '../charts/bucket-note';
import DataSince from '../charts/data-since';
import CompareChart from './compare-chart';
import CompareTable from './compare-table';

const CHARTS = [
  { metric: 'efficiency', title: 'Retry efficiency' },
  { metric: 'calls', title: 'Calls per minute' },
] as const;

/** Compare mode: the busiest services, variants or servers side by side, same plan, same axes. */
export default async function ComparePanel({ query, by }: { query: TimeQuery; by: CompareBy }) {
  const [groups, annotations] = await Promise.all([fetchCompare(query, by), fetchAnnotations(query)]);
  const span = query.to - query.from;
  if (groups.length === 0) {
    return (
      <section className="panel" data-testid="compare-panel">
        <div className="empty">No {by} has data in this window.</div>
      </section>
    );
  }
  const start = compareChartsStart(groups, annotations);
  const step = groups[0]!.calls.step;
  return (
    <section data-testid="compare-panel" style={{ marginBottom: 14 }}>
      <div className="grid two" style={{ marginBottom: 14 }}>
        <DataSince start={start} from={query.from} step={step} testId="compare-data-since" />
        <BucketNote step={step} exportMs={groups[0]!.calls.exportMs} testId="compare-bucket-note" />
        {CHARTS.map(({ metric, title }) => (
          <section className="panel" key={metric}>
            <h2>
              {title} by {by}
            </h2>
            <CompareChart
              groups={groups}
              by={by}
              metric={metric}
              spanMs={span}
              annotations={annotations}
              start={start}
            />
          </section>
        ))}
      </div>
      <CompareTable groups={groups} by={by} />
    </section>
  );
}
