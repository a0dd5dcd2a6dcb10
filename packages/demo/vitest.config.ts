import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // the smoke test starts the built dashboard (a Next build): `npm run test:system`
    exclude: ['src/**/*.system.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
  },
});
