import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="panel">
      <h2>Not found</h2>
      <Link href="/">Back to the overview</Link>
    </main>
  );
}
