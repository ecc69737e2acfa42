// Starts the build of the embedded snapshot that most test files share (test/support/shared-build.ts) and returns
// at once: the files that build their own catalogs run meanwhile (test/support/sequencer.ts orders them first).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type {} from './shared-build.ts';

const RUNNER = fileURLToPath(new URL('./shared-build-runner.ts', import.meta.url));

export default function setup(project: TestProject): () => Promise<void> {
  // Every temporary file of the run (test fixtures, servers' scratch files, nginx and Redis prefixes) goes under
  // one directory, removed at the end: a file that forgets its directories leaves nothing behind in the system's
  // temporary directory. The test workers and the shared build start after this and inherit it.
  const runTmp = mkdtempSync(join(tmpdir(), 'catalog-run-'));
  process.env.TMPDIR = runTmp;
  const existing = process.env.CATALOG_TEST_DATA_DIR;
  const dataDir = existing ?? mkdtempSync(join(tmpdir(), 'catalog-test-'));
  const statusFile = join(dataDir, 'shared-build.json');
  rmSync(statusFile, { force: true });
  // Its output goes to this terminal: a failing build says why before the files that wait for it fail. A process
  // group of its own, so that stopping it early (a run of a few files) stops its renderers too.
  const builder: ChildProcess = fork(RUNNER, [dataDir, statusFile], { execArgv: [], stdio: 'inherit', detached: true });
  project.provide('catalogDataDir', dataDir);
  project.provide('catalogBuildStatus', statusFile);
  project.provide('catalogBuildPid', builder.pid!);
  return async () => {
    if (builder.exitCode === null && builder.signalCode === null) {
      const exited = once(builder, 'exit');
      process.kill(-builder.pid!, 'SIGTERM');
      await exited;
    }
    // ~37k files in the shared build: removing them takes seconds the run need not wait for.
    spawn('rm', ['-rf', runTmp, ...(existing ? [] : [dataDir])], { detached: true, stdio: 'ignore' }).unref();
  };
}
