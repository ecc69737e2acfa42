// Runs first the files that do not wait for the shared build (global-setup.ts starts it and returns): the cycle
// tests that build catalogs of their own, and the unit tests, overlap it instead of queueing behind it.
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A server started without a build of its own (test/support/server.ts) serves the shared one. */
const SERVER_CALL = /\b(?:startServer|startInProcess)\(([^\n]*)/g;

export function waitsForSharedBuild(source: string): boolean {
  if (source.includes('sharedBuildDir(')) return true;
  for (const call of source.matchAll(SERVER_CALL)) if (!call[1]!.includes('buildDir')) return true;
  return false;
}

export default class SharedBuildLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = new Map(sorted.map((file) => [file, waitsForSharedBuild(readFileSync(file.moduleId, 'utf8'))]));
    // Stable: within each group, vitest's own order (slowest or largest first).
    return [...sorted.filter((file) => !waits.get(file)), ...sorted.filter((file) => waits.get(file))];
  }
}
