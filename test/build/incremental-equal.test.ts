// Guarantees an incremental rebuild writes what a full build of the same data writes: a catalog A is built, then B
// (a listing changed, one removed) is built over it twice from the same store and the same build being replaced, once
// reusing A's output (pages, shard files) and once with --force (everything made anew), and every file of the two
// builds is compared byte for byte. Only the build-time records differ, by design: build.json's time, timings and CPU,
// site-stats.json's timings and its counts of pages rendered and carried; and where a build is: the renderer's server
// bundle (astro/server), whose chunks name the directory they were built in, and the paths of the data and build
// directories and the build's name in build.json and the front's configuration (two full builds differ there too).
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDirs, currentBuild, defaultStages, runBuild, type BuildResult, type Stage } from '../../build/build-pipeline.ts';
import { walkFiles } from '../../build/walk-files.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';

const BASE = 'http://catalog.test';
const CHANGED = 'web-design-guidelines';
const REMOVED = 'discord-plugin';
/** Files that record how the build ran rather than what it made, with the fields that say so. */
const BUILD_TIME_FIELDS: Record<string, string[]> = {
  'build.json': ['builtAt', 'timings', 'cpu'],
  'astro/site-stats.json': ['seconds', 'incremental', 'compressed', 'maxRssKB'],
};

/** Files that name the data and build directories they were written in. */
const LOCATED = /^(?:build\.json|front\/.*\.conf)$/;

/** Every file of a build: the digest of its bytes (build-time fields and its own location left out) and its inode. */
async function files(buildDir: string): Promise<Map<string, { digest: string; ino: number }>> {
  const dataDir = dirname(dirname(buildDir));
  const out = new Map<string, { digest: string; ino: number }>();
  for await (const path of walkFiles(buildDir)) {
    if (path.startsWith('astro/server/')) continue;
    const full = join(buildDir, path);
    let body: Buffer | string = readFileSync(full);
    if (LOCATED.test(path)) body = body.toString('utf8').replaceAll(buildDir, '<build>').replaceAll(dataDir, '<data>').replaceAll(basename(buildDir), '<name>');
    const fields = BUILD_TIME_FIELDS[path];
    if (fields) {
      const record = JSON.parse(body.toString()) as Record<string, unknown>;
      for (const field of fields) delete record[field];
      body = JSON.stringify(record);
    }
    out.set(path, { digest: createHash('sha256').update(body).digest('hex'), ino: statSync(full).ino });
  }
  return out;
}

describe('an incremental rebuild equals a full build of the same data', () => {
  const dir = tempDir('catalog-incremental-equal-');
  const records = sampleRecords(6);
  let first: BuildResult;
  let incremental: BuildResult;
  let full: BuildResult;
  let fullDataDir: string;
  let next: ListingRecord[];
  const dataDir = join(dir, 'incremental');

  beforeAll(async () => {
    first = await runBuild({ dataDir, exportPath: writeExport(join(dir, 'export-a'), records), baseUrl: BASE, quiet: true });
    // The same store and the same build being served on both sides: the change log is A → B on both.
    fullDataDir = join(dir, 'full');
    cpSync(dataDir, fullDataDir, { recursive: true, verbatimSymlinks: true });
    next = records
      .filter((record) => record.slug !== REMOVED)
      .map((record) =>
        record.slug === CHANGED
          ? {
              ...record,
              installs: record.installs + 5,
              installsHistory: [...(record.installsHistory ?? []).slice(0, -1), record.installs + 5],
              description: 'Rewritten: checks a UI against the guidelines.',
            }
          : record,
      );
    const exportB = writeExport(join(dir, 'export-b'), next);
    incremental = await runBuild({ dataDir, exportPath: exportB, baseUrl: BASE, quiet: true });
    full = await runBuild({ dataDir: fullDataDir, exportPath: exportB, baseUrl: BASE, quiet: true, force: true });
  }, 600_000);

  it('writes the same files with the same bytes', async () => {
    const a = await files(incremental.buildDir);
    const b = await files(full.buildDir);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    const differing = [...a].filter(([path, file]) => b.get(path)?.digest !== file.digest).map(([path]) => path);
    expect(differing).toEqual([]);
  });

  it('reused the previous build where nothing changed, and made everything anew with --force', async () => {
    const before = await files(first.buildDir);
    // The full side's A is the copy in its own data directory.
    const beforeFull = await files(join(fullDataDir, 'builds', basename(first.buildDir)));
    const reused = (result: BuildResult, path: string) => statSync(join(result.buildDir, path)).ino === (result === full ? beforeFull : before).get(path)?.ino;
    // A listing page and a shard page of a type with no change are A's files, with their variants; the changed
    // listing's are not.
    expect(reused(incremental, 'site/listings/dify.html')).toBe(true);
    expect(reused(incremental, 'site/shards/mcp/page-0001.json')).toBe(true);
    expect(reused(incremental, 'site/shards/mcp/page-0001.json.br')).toBe(true);
    // A discovery file that says nothing of the listings (the OpenAPI description) is A's too.
    expect(reused(incremental, 'site/openapi.json')).toBe(true);
    expect(reused(incremental, `site/listings/${CHANGED}.html`)).toBe(false);
    expect(reused(incremental, 'site/shards/skill/page-0001.json')).toBe(false);
    expect(reused(full, 'site/listings/dify.html')).toBe(false);
    expect(reused(full, 'site/shards/mcp/page-0001.json')).toBe(false);
  });

  it('that fails after reusing the served build leaves that build as it was and serving', async () => {
    const served = await files(incremental.buildDir);
    const failing: Stage = {
      name: 'failing',
      run: async () => {
        throw new Error('disk full');
      },
    };
    const third = next.map((record) => (record.slug === 'dify' ? { ...record, description: 'Changed once more.' } : record));
    // Every stage runs, each reusing what it can of the served build, before the last one fails.
    const stages = [...(await defaultStages()), failing];
    await expect(runBuild({ dataDir, exportPath: writeExport(join(dir, 'export-c'), third), baseUrl: BASE, quiet: true, stages })).rejects.toThrow('disk full');
    expect(currentBuild(buildDirs(dataDir))).toBe(incremental.buildDir);
    expect(
      readdirSync(buildDirs(dataDir).buildsDir)
        .map((name) => join(buildDirs(dataDir).buildsDir, name))
        .sort(),
    ).toEqual([first.buildDir, incremental.buildDir].sort());
    // Same bytes and same inodes: nothing was written through a link.
    expect(await files(incremental.buildDir)).toEqual(served);
  }, 300_000);
});
