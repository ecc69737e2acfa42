// Tests run against real builds and a real server; the embedded snapshot is built once per run (global setup)
// and shared read-only, tests that mutate build their own small catalogs in temp directories.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
