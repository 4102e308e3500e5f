import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-heavy integration tests share 2 cores; running files in parallel only adds contention.
    fileParallelism: false,
  },
});
