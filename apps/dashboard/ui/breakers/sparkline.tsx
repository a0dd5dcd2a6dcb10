/**
 * A tiny SVG sparkline of calls (grey) and failures (red). Still-filling points (at or after `partialFrom`)
 * are left out of the lines and their span shaded, so they do not read as a drop.
 */
export default function Sparkline({
  points,
  partialFrom,
}: {
  points: Array<{ t: number; calls: number; failures: number }>;
  partialFrom?: number | undefined;
}) {
  const w = 220;
  const h = 34;
  if (points.length < 2) return <svg width={w} height={h} aria-hidden="true" />;
  const complete = points.filter((p) => partialFrom === undefined || p.t < partialFrom);
  const max = Math.max(1, ...complete.map((p) => p.calls));
  const x = (i: number) => (i / (points.length - 1)) * w;
  const y = (v: number) => h - 2 - (v / max) * (h - 4);
  const line = (pick: (p: (typeof points)[number]) => number) =>
    complete.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(' ');
  const firstPartial = complete.length;
  return (
    <svg
      width="100%"
      height={h}
      viewBox={`0 0 ${w} ${h}`}
      preserveAspectRatio="none"
      aria-label="calls sparkline"
    >
      {firstPartial < points.length ? (
        <rect
          x={x(Math.max(0, firstPartial - 1))}
          y={0}
          width={w - x(Math.max(0, firstPartial - 1))}
          height={h}
          fill="#94a3b8"
          fillOpacity={0.15}
          className="partial-bucket"
        >
          <title>still filling</title>
        </rect>
      ) : null}
      <path d={line((p) => p.calls)} fill="none" stroke="#9ca3af" strokeWidth={1.5} />
      <path d={line((p) => p.failures)} fill="none" stroke="#d93636" strokeWidth={1.5} />
    </svg>
  );
}
