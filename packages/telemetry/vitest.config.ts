import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const middleware = (path: string) => fileURLToPath(new URL(`../middleware/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Test against the middleware's sources, not a possibly stale build (tsconfig.json maps the same paths).
    alias: [
      { find: /^@mcp-resilience\/middleware$/, replacement: middleware('index.ts') },
      { find: /^@mcp-resilience\/middleware\/otel$/, replacement: middleware('otel/index.ts') },
      { find: /^@mcp-resilience\/middleware\/semconv$/, replacement: middleware('otel/semconv.ts') },
      { find: /^@mcp-resilience\/middleware\/testing$/, replacement: middleware('testing/index.ts') },
    ],
    // One @opentelemetry/api, this package's (1.10, OTel SDK 3), also for the middleware's sources, as in an app
    // on SDK 3; the middleware's own suite runs on SDK 2 with api 1.9.
    dedupe: ['@opentelemetry/api'],
  },
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
