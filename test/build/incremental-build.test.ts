// Guarantees a second build with unchanged input does no stage work and keeps serving the same build, while
// a changed snapshot (or --force) builds anew; and that a failed build leaves the previous one serving.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentBuild, buildDirs, runBuild, INDEX_STAGE, type Stage } from '../../build/build-pipeline.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';
import { CHANGE_LOG_PATH } from '../../build/change-log.ts';
import { RUNTIME_FORMAT, RUNTIME_MANIFEST_FILE } from '../../src/artifacts/runtime-manifest.ts';

const BASE = 'http://catalog.test';

describe('incremental build', () => {
  it('skips every stage when snapshot, origin, counters and code are unchanged', async () => {
    const dir = tempDir();
    const records = sampleRecords(8);
    const exportPath = writeExport(join(dir, 'export'), records);
    const dataDir = join(dir, 'data');
    const first = await runBuild({ dataDir, exportPath, baseUrl: BASE, quiet: true });
    expect(first.unchanged).toBe(false);
    expect(Object.keys(first.timings)).toEqual(expect.arrayContaining(['ingest', 'index', 'site', 'shards', 'discovery']));

    const second = await runBuild({ dataDir, exportPath, baseUrl: BASE, quiet: true });
    expect(second.unchanged).toBe(true);
    expect(second.buildDir).toBe(first.buildDir);
    expect(Object.keys(second.timings)).toEqual(['ingest']);
    expect(currentBuild(buildDirs(dataDir))).toBe(first.buildDir);

    const otherOrigin = await runBuild({ dataDir, exportPath, baseUrl: 'http://elsewhere.test', quiet: true, stages: [INDEX_STAGE] });
    expect(otherOrigin.unchanged).toBe(false);

    const changed = writeExport(join(dir, 'export2'), records.slice(1));
    const third = await runBuild({ dataDir, exportPath: changed, baseUrl: BASE, quiet: true, stages: [INDEX_STAGE] });
    expect(third.unchanged).toBe(false);
    expect(third.runtime.count).toBe(records.length - 1);

    const forced = await runBuild({ dataDir, exportPath: changed, baseUrl: BASE, quiet: true, stages: [INDEX_STAGE], force: true });
    expect(forced.unchanged).toBe(false);
    expect(forced.buildDir).not.toBe(third.buildDir);
  });

  // Three whole builds (the first, one over the older build, one over that): a loaded two-core machine needs minutes.
  it('builds over a current build an older checkout made (another runtime format), its change log from that build', async () => {
    const dir = tempDir();
    const records = sampleRecords(6);
    const dataDir = join(dir, 'data');
    const first = await runBuild({ dataDir, exportPath: writeExport(join(dir, 'export'), records), baseUrl: BASE, quiet: true });
    const manifestPath = join(first.buildDir, 'runtime', RUNTIME_MANIFEST_FILE);
    const older = { ...(JSON.parse(readFileSync(manifestPath, 'utf8')) as object), format: RUNTIME_FORMAT - 1 };
    writeFileSync(manifestPath, JSON.stringify(older));
    // Unchanged input: the older build is not taken as this code's output.
    const again = await runBuild({ dataDir, exportPath: writeExport(join(dir, 'export'), records), baseUrl: BASE, quiet: true });
    expect(again.unchanged).toBe(false);
    writeFileSync(
      join(again.buildDir, 'runtime', RUNTIME_MANIFEST_FILE),
      JSON.stringify({ ...(JSON.parse(readFileSync(join(again.buildDir, 'runtime', RUNTIME_MANIFEST_FILE), 'utf8')) as object), format: RUNTIME_FORMAT - 1 }),
    );
    // A changed snapshot over it: the shards stage reads the build it replaces for the change log.
    const next = await runBuild({ dataDir, exportPath: writeExport(join(dir, 'export2'), records.slice(1)), baseUrl: BASE, quiet: true });
    expect(currentBuild(buildDirs(dataDir))).toBe(next.buildDir);
    const changes = JSON.parse(readFileSync(join(next.buildDir, 'site', CHANGE_LOG_PATH), 'utf8')) as { from: string | null; removed: unknown[] };
    expect(changes.from).toBe(first.runtime.snapshotHash);
    expect(changes.removed).toHaveLength(1);
  }, 180_000);

  it('a failing stage leaves the previous build serving and removes the half-made one', async () => {
    const dir = tempDir();
    const exportPath = writeExport(join(dir, 'export'), sampleRecords(3));
    const dataDir = join(dir, 'data');
    const good = await runBuild({ dataDir, exportPath, baseUrl: BASE, quiet: true, stages: [INDEX_STAGE] });
    const failing: Stage = {
      name: 'failing',
      run: async () => {
        throw new Error('disk full');
      },
    };
    await expect(runBuild({ dataDir, exportPath, baseUrl: BASE, quiet: true, stages: [INDEX_STAGE, failing] })).rejects.toThrow('disk full');
    expect(currentBuild(buildDirs(dataDir))).toBe(good.buildDir);
    expect(existsSync(join(good.buildDir, 'runtime', 'manifest.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(good.buildDir, 'build.json'), 'utf8')).fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});
