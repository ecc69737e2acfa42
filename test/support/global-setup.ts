// Builds the embedded snapshot once for the whole test run and hands its location to every test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runBuild } from '../../build/pipeline.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    catalogDataDir: string;
    catalogBuildDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const existing = process.env.CATALOG_TEST_DATA_DIR;
  const dataDir = existing ?? mkdtempSync(join(tmpdir(), 'catalog-test-'));
  const { buildDir } = await runBuild({
    dataDir,
    exportPath: resolve('data/listings.jsonl'),
    baseUrl: 'http://catalog.test',
    quiet: true,
  });
  project.provide('catalogDataDir', dataDir);
  project.provide('catalogBuildDir', buildDir);
  return () => {
    if (!existing) rmSync(dataDir, { recursive: true, force: true });
  };
}
