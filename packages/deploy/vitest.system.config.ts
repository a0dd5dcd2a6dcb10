import { defineConfig } from 'vitest/config';

// `npm run test:system`: promtool, amtool, a real Prometheus and Alertmanager (Debian packages `prometheus` and
// `prometheus-alertmanager`), and the dashboard's image layout started from a built dashboard.
export default defineConfig({
  test: {
    include: ['test/**/*.system.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
