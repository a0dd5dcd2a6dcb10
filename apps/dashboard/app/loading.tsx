import { CardsSkeleton, ChartsSkeleton } from '@/ui/skeletons';

export default function Loading() {
  return (
    <main>
      <CardsSkeleton />
      <ChartsSkeleton />
    </main>
  );
}
