import LocalTime from '@/ui/local-time';

/**
 * Says where the charts start when the data begins after the selected range does (the charts start at the
 * first data instead of leaving the range's empty part blank): "Data since 11:57: the charts start there (the
 * 1h range began 10:58)". Nothing when the data reaches back to the range's start.
 */
export default function DataSince({
  start,
  from,
  step,
  testId = 'charts-data-since',
}: {
  /** The charts' first bucket (`chartsStart`), if any data. */
  start: number | undefined;
  /** The selected range's start. */
  from: number;
  /** The charts' bucket width: data that starts within the first bucket is the whole range. */
  step: number;
  /** The note's test id (compare mode's charts have their own note). */
  testId?: string;
}) {
  if (start === undefined || start < from + step) return null;
  return (
    <p
      className="muted data-since"
      data-testid={testId}
      data-start={start}
      style={{ gridColumn: '1 / -1', margin: 0, fontSize: 12 }}
    >
      <b>
        Data since <LocalTime t={start} />
      </b>
      : the charts start there, nothing before it is drawn (the selected range began <LocalTime t={from} />
      ).
    </p>
  );
}
