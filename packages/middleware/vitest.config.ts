import { defineConfig } from 'vitest/config';

/** The AI SDK lines the `ai` adapter is tested on: `ai` is the newest major, `ai-v6` (an npm alias) the older one. */
const aiSdkLines = [
  { name: 'ai-v7', major: 7, alias: [] },
  { name: 'ai-v6', major: 6, alias: [{ find: /^ai(\/.*)?$/, replacement: 'ai-v6$1' }] },
];
const aiSuites = ['test/adapters/ai.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'middleware',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.system.test.ts', '**/node_modules/**', ...aiSuites],
        },
      },
      ...aiSdkLines.map((line) => ({
        extends: true as const,
        resolve: { alias: line.alias },
        test: { name: line.name, include: aiSuites, provide: { aiSdkMajor: line.major } },
      })),
    ],
  },
});
