import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000, // CPU-bound suites (100k alerts, 1M-row stores) on a loaded 2-core CI machine
    hookTimeout: 30_000,
  },
});
