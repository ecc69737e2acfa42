// A build is served only while its runtime artifacts are in the formats this code reads: a data directory an older
// checkout built is built again on start when that is allowed, and otherwise left to loading, which names the fix.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { buildDirs, switchCurrent } from '../../src/artifacts/build-dirs.ts';
import { isCurrentRuntime, KEYWORD_INDEX_DIR, RUNTIME_FORMAT, RUNTIME_MANIFEST_FILE } from '../../src/artifacts/runtime-manifest.ts';
import { loadConfig } from '../../src/config.ts';
import { currentOrFirstBuild } from '../../server/first-build.ts';

let shared: string;
const temps: string[] = [];

beforeAll(async () => {
  shared = await sharedBuildDir();
});

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data directory whose current build holds the shared build's manifest and keyword index layout, as given. */
function dataDirWith(change: (runtime: string) => void = () => {}): { dataDir: string; buildDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-build-format-'));
  temps.push(dataDir);
  const dirs = buildDirs(dataDir);
  const buildDir = join(dirs.buildsDir, '20260101T000000');
  const runtime = join(buildDir, 'runtime');
  mkdirSync(join(runtime, KEYWORD_INDEX_DIR), { recursive: true });
  cpSync(join(shared, 'runtime', RUNTIME_MANIFEST_FILE), join(runtime, RUNTIME_MANIFEST_FILE));
  cpSync(join(shared, 'runtime', KEYWORD_INDEX_DIR, 'index.json'), join(runtime, KEYWORD_INDEX_DIR, 'index.json'));
  change(runtime);
  switchCurrent(dirs, buildDir);
  return { dataDir, buildDir };
}

function setFormat(file: string, format: number): void {
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), format }));
}

describe('build formats', () => {
  it('knows a build of this code from one in an older runtime or keyword index format', () => {
    expect(isCurrentRuntime(shared)).toBe(true);
    expect(isCurrentRuntime(dataDirWith().buildDir)).toBe(true);
    expect(isCurrentRuntime(dataDirWith((runtime) => setFormat(join(runtime, RUNTIME_MANIFEST_FILE), RUNTIME_FORMAT - 1)).buildDir)).toBe(false);
    expect(isCurrentRuntime(dataDirWith((runtime) => setFormat(join(runtime, KEYWORD_INDEX_DIR, 'index.json'), 1)).buildDir)).toBe(false);
    expect(isCurrentRuntime(dataDirWith((runtime) => rmSync(join(runtime, KEYWORD_INDEX_DIR), { recursive: true })).buildDir)).toBe(false);
  });

  it('serves a current build, builds an older one again on start, and leaves it to loading when it may not build', async () => {
    const missingExport = join(tmpdir(), 'catalog-no-such-export.jsonl');
    const current = dataDirWith();
    expect(await currentOrFirstBuild(loadConfig({ CATALOG_DATA_DIR: current.dataDir, CATALOG_EXPORT: missingExport }))).toEqual({ buildDir: current.buildDir });

    const older = dataDirWith((runtime) => setFormat(join(runtime, RUNTIME_MANIFEST_FILE), RUNTIME_FORMAT - 1));
    // The rebuild is attempted (and fails here on the missing export) instead of the older build being served.
    await expect(currentOrFirstBuild(loadConfig({ CATALOG_DATA_DIR: older.dataDir, CATALOG_EXPORT: missingExport, LOG_LEVEL: 'silent' }))).rejects.toThrow(
      /build on start failed/,
    );
    expect(await currentOrFirstBuild(loadConfig({ CATALOG_DATA_DIR: older.dataDir, CATALOG_EXPORT: missingExport, CATALOG_BUILD_ON_START: 'false' }))).toEqual({
      buildDir: older.buildDir,
    });
  }, 60_000);
});
