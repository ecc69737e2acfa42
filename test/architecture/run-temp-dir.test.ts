// The run's temporary files live under one directory that the global teardown removes
// (test/support/global-setup.ts): fixtures, servers' scratch files and nginx or Redis prefixes made with
// os.tmpdir() never pile up in the system's temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('temporary files of a test run', () => {
  it('are made under the run directory, not the system temporary directory', () => {
    expect(basename(tmpdir())).toMatch(/^catalog-run-/);
    const dir = mkdtempSync(join(tmpdir(), 'catalog-fixture-'));
    try {
      expect(dirname(dir)).toBe(tmpdir());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
