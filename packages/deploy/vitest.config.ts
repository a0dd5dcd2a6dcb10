import { defineConfig } from 'vitest/config';

// `npm test`: static checks that need nothing but Node (the YAML files, the compose file, the Dockerfiles).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/**/*.system.test.ts'],
    environment: 'node',
    // Compiling the Compose JSON schema (ajv) took over vitest's default 5 s on a loaded 2-core machine.
    testTimeout: 30_000,
  },
});
