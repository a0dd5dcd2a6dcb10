import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts'],
    // The CLI and proxy tests spawn processes (tsx, server-everything): > 20 s on a loaded 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
