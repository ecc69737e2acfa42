// Guarantees the daily cycle over three successive exports through the real CLI: each listing's daily install
// history grows by one day per export (31, then 32 days kept), sharply grown listings rise to the top of
// sort=trending, removed listings disappear from the API, the shards and the sitemap, a new listing appears,
// and the reports count what was added, changed and removed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, openCatalogDb } from '../../build/sqlite-store.ts';
import type { ShardManifest } from '../../build/stages/shards-stage.ts';
import type { Listing, ListingPage, ListingRecord } from '../../src/domain/schemas.ts';
import { listingPath } from '../../src/domain/listing/listing-view.ts';
import { sampleRecords, snapshotRecords, writeExport } from '../support/fixtures.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { jsonOf, runCli } from './cli-runner.ts';
import { nextDay, sharpGain } from './daily-exports.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();

interface IngestJson {
  listings: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  rejected: number;
  snapshotUnchanged: boolean;
  changes: { added: string[]; changed: string[]; removed: string[] };
}
interface RebuildJson {
  ingest: IngestJson;
  build: { dir: string; listings: number };
  notify: { via: string };
}

const dataDir = tempDir('catalog-cycle-');
const exportsDir = tempDir('catalog-cycle-exports-');
const env = { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' };

const day1 = sampleRecords(40, ['pdf', 'docx']);
const byId = new Map(day1.map((r) => [r.id, r]));

let server: TestServer | undefined;
const serve = async (buildDir: string) => {
  await server?.close();
  server = await startInProcess({}, { buildDir }, { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' });
  return server;
};
afterAll(() => server?.close());

const trendingIds = async (s: TestServer, limit: number) =>
  (await json<ListingPage>(await s.fetch(`/api/v1/listings?sort=trending&limit=${limit}`))).items.map((l) => l.id);

const historyOf = (id: string) => {
  const db = openCatalogDb(join(dataDir, 'catalog.db'));
  try {
    const row = db.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?').get(id) as
      { firstDay: string; daily: string } | undefined;
    return row && { firstDay: row.firstDay, daily: JSON.parse(row.daily) as number[] };
  } finally {
    db.close();
  }
};

const textFiles = (root: string): string[] =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.(br|gz)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));

describe('three daily exports', () => {
  let grown: ListingRecord[] = [];
  let removed: ListingRecord[] = [];
  let newcomer: ListingRecord;
  let day2Build: string;
  let day3: RebuildJson;
  const steady = day1.find((r) => r.slug === 'docx')!;

  beforeAll(async () => {
    const first = await runCli(['build', '--export', writeExport(join(exportsDir, 'day1'), day1), '--quiet'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`added ${day1.length}, changed 0, removed 0`));
  });

  it("day 1: one build with the exports' 30 days of history", async () => {
    expect(historyOf(steady.id)!.daily).toEqual(steady.installsHistory);
    const s = await serve(join(dataDir, 'current'));
    const stats = await json<{ total: number }>(await s.fetch('/api/v1/catalog/stats'));
    expect(stats.total).toBe(day1.length);
  });

  it('day 2: every history moves on one day (31 kept), sharply grown listings rise to the top of trending', async () => {
    const before = await trendingIds(server!, day1.length);
    // Three listings from the lower half of day 1's trending order among those with a measured or interpolated
    // history (a modelled one is no trend: it follows them whatever it does), with some installs to grow from.
    const measured = before.map((id) => byId.get(id)!).filter((r) => r.metrics.history !== 'synthetic');
    grown = measured
      .slice(Math.floor(measured.length / 2))
      .filter((r) => r.installs >= 50 && r.slug !== steady.slug)
      .slice(0, 3);
    expect(grown).toHaveLength(3);
    const grownIds = new Set(grown.map((r) => r.id));
    const day2 = day1.map((r) => (grownIds.has(r.id) ? nextDay(r, sharpGain(r)) : nextDay(r)));

    const result = await runCli(['rebuild', '--export', writeExport(join(exportsDir, 'day2'), day2), '--no-notify', '--json', '--quiet'], env);
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf<RebuildJson>(result);
    expect(report.ingest).toMatchObject({
      listings: day1.length,
      added: 0,
      removed: 0,
      changed: day1.length,
      unchanged: 0,
      rejected: 0,
      snapshotUnchanged: false,
    });
    expect(report.notify.via).toBe('none');
    day2Build = report.build.dir;

    const history = historyOf(steady.id)!;
    expect(history.daily).toHaveLength(31);
    expect(history.daily.slice(0, 30)).toEqual(steady.installsHistory);
    expect(history.daily[30]).toBe(day2.find((r) => r.id === steady.id)!.installs);

    const s = await serve(day2Build);
    const after = await trendingIds(s, day1.length);
    expect(new Set(after.slice(0, 3))).toEqual(grownIds);
    for (const r of grown) expect(after.indexOf(r.id)).toBeLessThan(before.indexOf(r.id));
    const listing = await json<Listing>(await s.fetch(`/api/v1/listings/${encodeURIComponent(grown[0]!.id)}`));
    expect(listing.trending).toBeGreaterThan(0);
  });

  it('day 3: removed listings are gone, a new one is added, histories hold 32 days', async () => {
    const day2 = day1.map((r) => nextDay(r, grown.some((g) => g.id === r.id) ? sharpGain(r) : undefined));
    // Removed: the grown ones' neighbours in id order, plus pdf (a listing with stored files and shards of them).
    removed = [day1.find((r) => r.slug === 'pdf')!, ...day1.filter((r) => r.type === 'mcp').slice(0, 2), day1.find((r) => r.type === 'workflow')!];
    const removedIds = new Set(removed.map((r) => r.id));
    newcomer = snapshotRecords().find((r) => r.type === 'skill' && !byId.has(r.id) && !r.files)!;
    const day3Records = [...day2.filter((r) => !removedIds.has(r.id)).map((r) => nextDay(r)), nextDay(nextDay(newcomer))];

    const result = await runCli(['rebuild', '--export', writeExport(join(exportsDir, 'day3'), day3Records), '--no-notify', '--json', '--quiet'], env);
    expect(result.code, result.stderr).toBe(0);
    day3 = jsonOf<RebuildJson>(result);
    expect(day3.ingest).toMatchObject({
      listings: day1.length - removed.length + 1,
      added: 1,
      removed: removed.length,
      changed: day1.length - removed.length,
      unchanged: 0,
    });
    expect(new Set(day3.ingest.changes.removed)).toEqual(removedIds);
    expect(day3.ingest.changes.added).toEqual([newcomer.id]);

    expect(historyOf(steady.id)!.daily).toHaveLength(32);
    expect(historyOf(newcomer.id)!.daily).toHaveLength(30);
    // The removed keep their history in the store (for a listing that returns), but nothing reaches the build.
    expect(historyOf(removed[1]!.id)!.daily).toHaveLength(31);
  });

  it('day 3: the API answers the removed listings 410 Gone with the day they were last listed, and knows the new one', async () => {
    const s = await serve(day3.build.dir);
    for (const r of removed) {
      // The store keeps their history (31 days, ending on the day of the day-2 export): that day is in the answer.
      const history = historyOf(r.id)!;
      const lastListed = addDays(history.firstDay, history.daily.length - 1);
      for (const id of [r.id, r.slug, r.slug.toUpperCase()]) {
        const res = await s.fetch(`/api/v1/listings/${encodeURIComponent(id)}`);
        expect(res.status, id).toBe(410);
        const body = await json<{ code: string; message: string; resolution: string }>(res);
        expect(body).toMatchObject({ code: 'gone', message: expect.stringContaining(lastListed) });
        expect(body.message).toContain(r.id);
      }
      expect((await s.fetch(`/api/v1/listings/${encodeURIComponent(r.id)}/files`)).status).toBe(410);
      // Another listing's id with a removed slug is still just unknown.
      expect((await s.fetch(`/api/v1/listings/${encodeURIComponent(`skill:nobody/nothing#${r.slug}`)}`)).status).toBe(404);
      const found = await json<ListingPage>(await s.fetch(`/api/v1/listings?q=${encodeURIComponent(r.name)}&limit=100`));
      expect(found.items.map((l) => l.id)).not.toContain(r.id);
      const ofType = await json<ListingPage>(await s.fetch(`/api/v1/listings?type=${r.type}&limit=100`));
      expect(ofType.items.map((l) => l.id)).not.toContain(r.id);
    }
    const batch = await json<{ items: Listing[]; notFound: string[] }>(
      await s.fetch('/api/v1/listings/batch', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ids: removed.map((r) => r.id) }),
      }),
    );
    expect(batch.notFound.sort()).toEqual(removed.map((r) => r.id).sort());
    expect((await s.fetch(`/api/v1/listings/${encodeURIComponent(newcomer.id)}`)).status).toBe(200);
    expect((await json<{ total: number }>(await s.fetch('/api/v1/catalog/stats'))).total).toBe(day1.length - removed.length + 1);
  });

  it('day 3: the shards, the sitemap and every other file of the site no longer mention them', () => {
    const site = join(day3.build.dir, 'site');
    const manifest = JSON.parse(readFileSync(join(site, 'shards/manifest.json'), 'utf8')) as ShardManifest;
    expect(manifest.count).toBe(day1.length - removed.length + 1);
    const shardIds = manifest.collections.all!.pages.flatMap((page) => (JSON.parse(readFileSync(join(site, page.path), 'utf8')) as Listing[]).map((l) => l.id));
    expect(shardIds).toHaveLength(manifest.count);
    expect(shardIds).toContain(newcomer.id);
    for (const r of removed) expect(shardIds).not.toContain(r.id);
    expect(manifest.files.map((f) => f.path)).not.toContain('/shards/files/pdf.json');
    expect(existsSync(join(site, 'shards/files/pdf.json'))).toBe(false);
    expect(manifest.files.map((f) => f.path)).toContain('/shards/files/docx.json');

    const pages = removed.map((r) => TEST_BASE_URL + listingPath(r.slug));
    if (existsSync(join(site, 'sitemap.xml'))) {
      const sitemaps = textFiles(site).filter((file) => /sitemap[^/]*\.xml$/.test(file));
      for (const file of sitemaps) for (const page of pages) expect(readFileSync(file, 'utf8'), file).not.toContain(page);
    }
    if (existsSync(join(site, 'listings'))) {
      for (const r of removed) expect(existsSync(join(site, 'listings', `${r.slug}.html`))).toBe(false);
      expect(existsSync(join(site, 'listings', `${steady.slug}.html`))).toBe(true);
    }
    // The change log is one of the two files whose job is to name them: under `removed`, and nowhere else in it.
    const changes = JSON.parse(readFileSync(join(site, 'shards', 'changes.json'), 'utf8')) as { removed: Array<{ id: string }>; records: string[] };
    expect(changes.removed.map((entry) => entry.id)).toEqual(expect.arrayContaining(removed.map((r) => r.id)));
    for (const r of removed) expect(changes.records.some((line) => line.includes(`"${r.id}"`))).toBe(false);
    // And the list of removed listings (what a mirror answers 410 from): each with the last day it was listed.
    const gone = JSON.parse(readFileSync(join(site, 'shards', 'gone.json'), 'utf8')) as Record<string, string>;
    for (const r of removed) expect(gone[r.id], r.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const file of textFiles(site).filter((path) => !path.endsWith(join('shards', 'changes.json')) && !path.endsWith(join('shards', 'gone.json')))) {
      const text = readFileSync(file, 'utf8');
      for (const r of removed) {
        expect(text.includes(TEST_BASE_URL + listingPath(r.slug)), `${file} links ${r.slug}`).toBe(false);
        expect(text.includes(`"${r.id}"`), `${file} names ${r.id}`).toBe(false);
      }
    }
  });

  it('the same export again is not re-ingested and is reported unchanged', async () => {
    const result = await runCli(['build', '--export', join(exportsDir, 'day3', 'listings.jsonl'), '--quiet'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ingest: unchanged/m);
    const again = await runCli(['ingest', join(exportsDir, 'day3', 'listings.jsonl'), '--json'], env);
    expect(jsonOf<IngestJson>(again)).toMatchObject({ snapshotUnchanged: true, added: 0, changed: 0, removed: 0, unchanged: day1.length - removed.length + 1 });
  });
});
