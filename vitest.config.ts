// Tests run against real builds and a real server; the embedded snapshot is built once per run (global setup,
// overlapping the files that do not need it) and shared read-only, tests that mutate build their own small
// catalogs in temp directories.
import { defineConfig } from 'vitest/config';
import SharedBuildLastSequencer from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    sequence: { sequencer: SharedBuildLastSequencer },
    pool: 'forks',
    // A worker runs file after file: a fresh process per file cost ~1 s each (start, import the module graph).
    // Files leave no global state behind: each closes its servers, and temporary files live under the run's own
    // directory (test/support/global-setup.ts), removed at the end.
    isolate: false,
    maxWorkers: 2,
    fileParallelism: true,
  },
});
