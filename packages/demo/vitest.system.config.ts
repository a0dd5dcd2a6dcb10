import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.system.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
  },
});
