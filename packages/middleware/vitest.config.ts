import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/*.system.test.ts', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
