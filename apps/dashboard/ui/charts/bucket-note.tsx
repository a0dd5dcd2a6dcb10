/** A span in whole seconds, or minutes from a minute on: "30 s", "1 min", "1.5 min". */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Number((s / 60).toFixed(1))} min`;
}

/**
 * Says why the charts' buckets are as wide as they are when the data's export interval widened them (a
 * series' `exportMs`): "30 s buckets: the data is exported every 30 s". Nothing when the range set the step.
 */
export default function BucketNote({
  step,
  exportMs,
  testId = 'charts-bucket-note',
}: {
  /** The charts' bucket width. */
  step: number;
  /** The export interval that set it (`Series.exportMs`), if it did. */
  exportMs: number | undefined;
  testId?: string;
}) {
  if (exportMs === undefined) return null;
  return (
    <p
      className="muted bucket-note"
      data-testid={testId}
      data-step={step}
      data-export-ms={exportMs}
      style={{ gridColumn: '1 / -1', margin: 0, fontSize: 12 }}
    >
      <b>
        {span(step)} buckets: the data is exported every {span(exportMs)}
      </b>
      , so a finer bucket would hold no export, then several (a sawtooth the traffic does not have).
    </p>
  );
}
