import { defineConfig } from 'vitest/config';

// `npm test`: static checks that need nothing but Node (the YAML files, the compose file, the Dockerfiles).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/**/*.system.test.ts'],
    environment: 'node',
  },
});
