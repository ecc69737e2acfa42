// A rebuild's runtime is read by the shim while the rebuild still runs: once runtime-ready is in the build directory
// and until build.json is (preparableBuild), the shim loads it (LiveCatalog.prepare), and the switch after the SIGHUP
// uses what it loaded instead of reading runtime/ again; the semantic index keeps the query model when the new build
// links the same table. Builds here are hard-linked copies of the shared build.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_RECORD_FILE, buildDirs, preparableBuild, RUNTIME_READY_FILE, switchCurrent, type BuildDirs } from '../../src/artifacts/build-dirs.ts';
import { pino } from 'pino';
import { LiveCatalog, loadSnapshot } from '../../server/catalog/snapshot.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';
import { sharedBuildDir } from '../support/shared-build.ts';
import { tempDir } from '../support/fixtures.ts';

let shared: string;
beforeAll(async () => {
  shared = await sharedBuildDir();
}, 600_000);

/** A data directory serving a copy of the shared build, and a second copy being made (no build.json, no runtime-ready). */
function dataDirWithRebuild(): { dirs: BuildDirs; served: string; next: string } {
  const dirs = buildDirs(join(tempDir('catalog-switch-ahead-'), 'data'));
  mkdirSync(dirs.buildsDir, { recursive: true });
  const served = join(dirs.buildsDir, '20261128T000000');
  const next = join(dirs.buildsDir, '20261128T010000');
  for (const dir of [served, next]) {
    mkdirSync(dir);
    execFileSync('cp', ['-al', join(shared, 'runtime'), join(dir, 'runtime')]);
    symlinkSync(join(shared, 'site'), join(dir, 'site'));
  }
  writeFileSync(join(served, BUILD_RECORD_FILE), '{}');
  symlinkSync(join('builds', '20261128T000000'), dirs.currentLink);
  return { dirs, served, next };
}

describe('the next build loaded ahead of its switch', () => {
  it('is the newest build once its runtime is complete, until it has its build.json or is served', () => {
    const { dirs, served, next } = dataDirWithRebuild();
    expect(preparableBuild(dirs)).toBeUndefined();
    writeFileSync(join(next, RUNTIME_READY_FILE), '');
    expect(preparableBuild(dirs)).toBe(next);
    writeFileSync(join(next, BUILD_RECORD_FILE), '{}');
    expect(preparableBuild(dirs)).toBeUndefined();
    rmSync(join(next, BUILD_RECORD_FILE));
    switchCurrent(dirs, next);
    expect(preparableBuild(dirs)).toBeUndefined();
    // An older build than the served one is never the next.
    writeFileSync(join(served, RUNTIME_READY_FILE), '');
    rmSync(join(served, BUILD_RECORD_FILE));
    expect(preparableBuild(dirs)).toBeUndefined();
  });

  it('switches to it without reading its runtime again', () => {
    const { served, next } = dataDirWithRebuild();
    const catalog = new LiveCatalog(loadSnapshot(served));
    expect(catalog.prepare(served)).toBe(false);
    expect(catalog.prepare(next)).toBe(true);
    expect(catalog.prepared).toBe(next);
    expect(catalog.prepare(next)).toBe(false);
    // Its runtime is gone from where it was: a load now would fail, the switch does not read it.
    renameSync(join(next, 'runtime'), join(next, 'runtime-moved'));
    expect(() => loadSnapshot(next)).toThrow();
    const switched = catalog.swap(next);
    expect(catalog.current).toBe(switched);
    expect(switched.buildDir).toBe(next);
    expect(switched.store.count).toBeGreaterThan(0);
    expect(catalog.prepared).toBeUndefined();
  });

  it('is dropped when the switch goes to another build, and loaded again when asked', () => {
    const { served, next } = dataDirWithRebuild();
    const catalog = new LiveCatalog(loadSnapshot(served));
    catalog.prepare(next);
    catalog.swap(served);
    expect(catalog.prepared).toBeUndefined();
    expect(catalog.prepare(next)).toBe(true);
    catalog.drop();
    expect(catalog.prepared).toBeUndefined();
  });
});

describe('the query model across a switch', () => {
  it('is kept when the new build links the same table, loaded when its table is another file, and embeds after', async () => {
    const { served, next } = dataDirWithRebuild();
    // A third build whose model files are copies: the same bytes, other files.
    const copied = join(served, '..', '20261128T020000');
    mkdirSync(copied);
    execFileSync('cp', ['-al', join(shared, 'runtime'), join(copied, 'runtime')]);
    const model = join(copied, 'runtime', 'embeddings', 'model');
    rmSync(model, { recursive: true });
    cpSync(join(shared, 'runtime', 'embeddings', 'model'), model, { recursive: true });
    symlinkSync(join(shared, 'site'), join(copied, 'site'));

    const lines: Array<{ msg: string; queryModel?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; queryModel?: string }) });
    const semantic = new SemanticIndex(logger);
    try {
      const queryModels: string[] = [];
      for (const dir of [served, next, copied]) {
        const snapshot = loadSnapshot(dir);
        expect(await semantic.load(snapshot)).toBe('ready');
        queryModels.push(lines.filter((line) => line.msg === 'semantic search ready').at(-1)!.queryModel!);
        const vector = await semantic.ready(snapshot)!.embed('convert pdf files');
        expect(vector && [...vector].some((value) => value !== 0)).toBe(true);
      }
      expect(queryModels).toEqual(['loaded', 'kept', 'loaded']);
    } finally {
      await semantic.close();
    }
  });
});
