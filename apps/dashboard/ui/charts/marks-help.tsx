/** The key of the charts' marks, above them: what each glyph in the lane above a plot stands for. */
export default function MarksHelp() {
  return (
    <p className="muted chart-help" style={{ gridColumn: '1 / -1', margin: 0, fontSize: 12 }}>
      Marks above every chart: <span style={{ color: '#d93636' }}>●</span> breaker opened,{' '}
      <span style={{ color: '#f08c00' }}>●</span> half-open, <span style={{ color: '#1a9e55' }}>●</span>{' '}
      closed, <span style={{ color: '#7c3aed' }}>⚑</span> alert, with a count where several fall close
      together (hover for details); shaded: still filling. Drag across a chart to zoom, click a point for its
      calls.
    </p>
  );
}
