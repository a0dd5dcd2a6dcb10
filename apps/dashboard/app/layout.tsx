import type { Metadata } from 'next';
import { Suspense } from 'react';
import { fetchDimensions, fetchFiringAlerts } from '@/lib/data/fetchers';
import AlertBanner from '@/ui/alert-banner';
import FilterBar from '@/ui/filter-bar';
import LiveProvider from '@/ui/live/live-provider';
import SideNav from '@/ui/nav/side-nav';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'mcp-resilience', template: '%s · mcp-resilience' },
  description: 'Retry efficiency, error classes, circuit breakers and alerts of MCP tool calls',
};

// Every page reads live data: nothing is prerendered.
export const dynamic = 'force-dynamic';

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const now = Date.now();
  const dims = await fetchDimensions({ from: now - 7 * 86_400_000, to: now, filters: {} });
  const firing = fetchFiringAlerts();
  return (
    <html lang="en">
      <body>
        <Suspense>
          <LiveProvider>
            <div className="shell">
              <SideNav />
              <div className="content">
                <AlertBanner alerts={firing} />
                <FilterBar
                  services={dims.services}
                  servers={dims.servers}
                  tools={dims.tools}
                  variants={dims.variants}
                />
                {children}
              </div>
            </div>
          </LiveProvider>
        </Suspense>
      </body>
    </html>
  );
}
