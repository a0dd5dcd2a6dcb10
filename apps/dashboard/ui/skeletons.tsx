export function CardsSkeleton() {
  return (
    <div className="grid cards">
      {[0, 1, 2, 3, 4].map((i) => (
        <div key={i} className="panel skeleton" style={{ minHeight: 96 }} />
      ))}
    </div>
  );
}

export function ChartsSkeleton() {
  return (
    <div className="grid two">
      <div className="panel skeleton" style={{ minHeight: 280 }} />
      <div className="panel skeleton" style={{ minHeight: 280 }} />
    </div>
  );
}

export function TableSkeleton() {
  return <div className="panel skeleton" style={{ minHeight: 300 }} />;
}

export default function DashboardSkeleton() {
  return (
    <>
      <CardsSkeleton />
      <ChartsSkeleton />
    </>
  );
}
