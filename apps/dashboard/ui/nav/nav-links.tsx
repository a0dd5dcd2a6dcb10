'use client';

import Link from 'next/link';
import { usePathname, useSearchParams } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Overview' },
  { href: '/breakers', label: 'Breakers' },
  { href: '/errors', label: 'Errors' },
  { href: '/calls', label: 'Calls' },
  { href: '/experiments', label: 'Experiments' },
  { href: '/alerts', label: 'Alerts' },
];

/** Keeps the time range and filters when moving between pages. */
export default function NavLinks() {
  const pathname = usePathname();
  const params = useSearchParams();
  const keep = new URLSearchParams();
  for (const k of ['range', 'service', 'server', 'tool']) {
    const v = params.get(k);
    if (v) keep.set(k, v);
  }
  const qs = keep.toString();
  return (
    <>
      {LINKS.map((l) => (
        <Link
          key={l.href}
          href={qs ? `${l.href}?${qs}` : l.href}
          className={`navlink${pathname === l.href ? ' active' : ''}`}
        >
          {l.label}
        </Link>
      ))}
    </>
  );
}
