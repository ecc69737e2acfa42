// Temp directories a test file creates and removes when it ends: builds are tens of megabytes each.
import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tempDir } from '../support/fixtures.ts';

/** A tempDir() that is removed after the calling file's tests (register at module level). */
export function scratchDirs(): (prefix?: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = tempDir(prefix);
    made.push(dir);
    return dir;
  };
}
