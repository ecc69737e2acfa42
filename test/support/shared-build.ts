// The embedded snapshot's build that most test files share. The global setup starts it in a child process and the
// run goes on meanwhile: the files that need it wait here, the others (the sequencer runs them first) overlap it.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    catalogDataDir: string;
    /** Where the build leaves { buildDir } or { error } when it ends (test/support/shared-build-runner.ts). */
    catalogBuildStatus: string;
    /** The building process, to tell a crash from a build still under way. */
    catalogBuildPid: number;
  }
}

/** Longer than any build of the snapshot on a slow machine; a hung build fails the files instead of the CI job. */
const WAIT_MS = 10 * 60_000;
const POLL_MS = 100;

let built: Promise<string> | undefined;

/** The shared build's directory, once it is built; fails with the build's own error if it failed. */
export function sharedBuildDir(): Promise<string> {
  built ??= waitForBuild(inject('catalogBuildStatus'), inject('catalogBuildPid'));
  return built;
}

/** The data directory of the shared build (known at once; its build may still be under way). */
export const sharedDataDir = (): string => inject('catalogDataDir');

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForBuild(statusFile: string, pid: number): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(statusFile)) {
    // The status is written before the process exits: gone without one is a crash (killed, out of memory).
    if (!running(pid)) {
      if (existsSync(statusFile)) break;
      throw new Error(`the shared test build (pid ${pid}) exited without a result`);
    }
    if (Date.now() > deadline) throw new Error(`the shared test build did not finish in ${WAIT_MS / 60_000} minutes`);
    await sleep(POLL_MS);
  }
  const status = JSON.parse(readFileSync(statusFile, 'utf8')) as { buildDir: string } | { error: string };
  if ('error' in status) throw new Error(`the shared test build failed:\n${status.error}`);
  return status.buildDir;
}
