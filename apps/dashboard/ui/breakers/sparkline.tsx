/** A tiny SVG sparkline of calls (grey) and failures (red). */
export default function Sparkline({
  points,
}: {
  points: Array<{ t: number; calls: number; failures: number }>;
}) {
  const w = 220;
  const h = 34;
  if (points.length < 2) return <svg width={w} height={h} aria-hidden="true" />;
  const max = Math.max(1, ...points.map((p) => p.calls));
  const x = (i: number) => (i / (points.length - 1)) * w;
  const y = (v: number) => h - 2 - (v / max) * (h - 4);
  const line = (pick: (p: (typeof points)[number]) => number) =>
    points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(' ');
  return (
    <svg
      width="100%"
      height={h}
      viewBox={`0 0 ${w} ${h}`}
      preserveAspectRatio="none"
      aria-label="calls sparkline"
    >
      <path d={line((p) => p.calls)} fill="none" stroke="#9ca3af" strokeWidth={1.5} />
      <path d={line((p) => p.failures)} fill="none" stroke="#d93636" strokeWidth={1.5} />
    </svg>
  );
}
