import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');

const nextConfig: NextConfig = {
  // A later Dockerfile copies .next/standalone (plus dist/server.mjs, see README).
  output: 'standalone',
  outputFileTracingRoot: root,
  turbopack: { root },
  serverExternalPackages: ['better-sqlite3'],
  transpilePackages: ['@mcp-resilience/middleware'],
  poweredByHeader: false,
  // The custom server streams SSE itself; Next's own responses stay compressed.
  compress: true,
  reactStrictMode: true,
};

export default nextConfig;
