// The shards stage streams: the export, the change log between two exports, the shard pages and the manifest are
// made without holding an export, a log or a manifest in one string or buffer. Proved with a lowered threshold: a
// real catalog's exports (the embedded snapshot's) against a V8 old space capped at OLD_SPACE_MIB, below the text of
// the two exports the change log compares, where reading them whole, as the build did, runs out of heap (as a
// million-listing export is past V8's string limit). The outputs are checked against what they must say.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeLogSchema, patchExport, type ChangeLog } from '../../build/change-log.ts';
import { manifestEntries, parseShardManifest } from '../../build/mirror/shard-manifest.ts';
import { SHARD_EXPORT_PATH, SHARD_PAGE_SIZE } from '../../build/stages/shards-stage.ts';
import { RUNTIME_IDS_FILE, RUNTIME_LISTINGS_FILE, RUNTIME_MANIFEST_FILE } from '../../src/artifacts/runtime-manifest.ts';
import { withUrl } from '../../src/domain/listing/listing-view.ts';
import { slugOfId } from '../../src/domain/schemas.ts';
import type { ShardManifest } from '../../build/stages/shards-stage.ts';
import { tempDir } from '../support/fixtures.ts';
import { sharedBuildDir, sharedDataDir } from '../support/shared-build.ts';
import { TEST_BASE_URL } from '../support/test-base-url.ts';

/** The lowered threshold: V8's old space in MiB, under two exports' worth of text. */
const OLD_SPACE_MIB = 64;
const RUNNER = new URL('../support/shards-stage-runner.ts', import.meta.url).pathname;
const run = promisify(execFile);

const digest = (body: Buffer | string) => createHash('sha256').update(body).digest('hex');

let site: string;
let previousExport: string;
let removedFromPrevious: string;
const bumped: string[] = [];

beforeAll(async () => {
  const shared = await sharedBuildDir();
  const work = tempDir('catalog-streaming-');
  const dataDir = join(work, 'data');
  const previous = join(dataDir, 'builds', 'previous');
  const next = join(dataDir, 'builds', 'next');
  mkdirSync(join(previous, 'runtime'), { recursive: true });
  mkdirSync(join(previous, 'site', 'shards', 'export'), { recursive: true });
  mkdirSync(next, { recursive: true });
  // The store is only read (the export comes from it); the new build's runtime/ is the shared build's.
  symlinkSync(join(sharedDataDir(), 'catalog.db'), join(dataDir, 'catalog.db'));
  cpSync(join(shared, 'runtime'), join(next, 'runtime'), { recursive: true });
  // The build being replaced: the same snapshot a day earlier, one listing not yet listed and some installs lower.
  cpSync(join(shared, 'runtime', RUNTIME_MANIFEST_FILE), join(previous, 'runtime', RUNTIME_MANIFEST_FILE));
  const lines = readFileSync(join(shared, 'site', SHARD_EXPORT_PATH), 'utf8')
    .split('\n')
    .filter(Boolean);
  removedFromPrevious = (JSON.parse(lines[0]!) as { id: string }).id;
  const earlier = lines.slice(1).map((line, i) => {
    if (i % 100 !== 7) return line;
    const record = JSON.parse(line) as { id: string; installs: number };
    bumped.push(record.id);
    return JSON.stringify({ ...record, installs: record.installs + 1 });
  });
  previousExport = earlier.map((line) => `${line}\n`).join('');
  writeFileSync(join(previous, 'site', SHARD_EXPORT_PATH), previousExport);
  symlinkSync(join('builds', 'previous'), join(dataDir, 'current'));

  const { stdout } = await run(process.execPath, [`--max-old-space-size=${OLD_SPACE_MIB}`, RUNNER, dataDir, next, TEST_BASE_URL], { maxBuffer: 1 << 20 });
  expect(stdout).toContain('maxRssKB');
  site = join(next, 'site');
});

describe('the shards stage under a 64 MiB old space', () => {
  it('publishes the export, byte for byte the records of the store, with its digest in the manifest', () => {
    const manifest = parseShardManifest(readFileSync(join(site, 'shards', 'manifest.json'), 'utf8'));
    const body = readFileSync(join(site, SHARD_EXPORT_PATH));
    expect(manifest.export).toMatchObject({ path: SHARD_EXPORT_PATH, bytes: body.length, sha256: digest(body) });
    expect(body.toString('utf8').split('\n').filter(Boolean)).toHaveLength(manifest.count);
    // Every file the manifest lists is there with its digest: pages, stored files, export, change log, gone list.
    for (const entry of manifestEntries(manifest)) expect(digest(readFileSync(join(site, entry.path))), entry.path).toBe(entry.sha256);
  });

  it('pages each collection: the runtime listings with their page URLs (withUrl), in the runtime order, SHARD_PAGE_SIZE a page', () => {
    const manifest = JSON.parse(readFileSync(join(site, 'shards', 'manifest.json'), 'utf8')) as ShardManifest;
    const runtime = join(site, '..', 'runtime');
    const ids = readFileSync(join(runtime, RUNTIME_IDS_FILE), 'utf8').split('\n');
    const expected = new Map<string, string[]>();
    readFileSync(join(runtime, RUNTIME_LISTINGS_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .forEach((line, doc) => {
        const id = ids[doc]!;
        const json = withUrl(line, slugOfId(id), TEST_BASE_URL);
        for (const name of ['all', id.slice(0, id.indexOf(':'))]) {
          if (!expected.has(name)) expected.set(name, []);
          expected.get(name)!.push(json);
        }
      });
    expect(Object.keys(manifest.collections).sort()).toEqual([...expected.keys()].sort());
    for (const [name, collection] of Object.entries(manifest.collections)) {
      const items = expected.get(name)!;
      expect(collection.count).toBe(items.length);
      expect(collection.pages).toHaveLength(Math.ceil(items.length / SHARD_PAGE_SIZE));
      collection.pages.forEach((page, i) => {
        const body = `[${items.slice(i * SHARD_PAGE_SIZE, (i + 1) * SHARD_PAGE_SIZE).join(',')}]`;
        expect(readFileSync(join(site, page.path), 'utf8') === body, page.path).toBe(true);
      });
    }
  });

  it('writes the manifest as it always was: pretty-printed, the stored files between the collections and the export', () => {
    const text = readFileSync(join(site, 'shards', 'manifest.json'), 'utf8');
    const manifest = JSON.parse(text) as ShardManifest;
    expect(manifest.files.length).toBeGreaterThan(0);
    expect(text).toBe(JSON.stringify(manifest, null, 1));
    expect(Object.keys(manifest)).toEqual(['format', 'snapshotHash', 'lastUpdated', 'count', 'pageSize', 'collections', 'files', 'export', 'changes', 'gone']);
  });

  it('lists in the change log exactly what changed, and patching the previous export with it gives the new one', async () => {
    const text = readFileSync(join(site, 'shards', 'changes.json'), 'utf8');
    const log: ChangeLog = ChangeLogSchema.parse(JSON.parse(text));
    expect(log.added.map((entry) => entry.id)).toEqual([removedFromPrevious]);
    expect(log.changed.map((entry) => entry.id).sort()).toEqual([...bumped].sort());
    expect(log.removed).toEqual([]);
    const published = readFileSync(join(site, SHARD_EXPORT_PATH), 'utf8');
    expect(await patchExport(previousExport, log.from!, log)).toBe(published);
  });
});
