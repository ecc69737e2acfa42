// Guarantees searchTrend end to end over real HTTP: the shim counts each listing returned in a first page of
// search results and each open (read by id, listing page served), counts only, flushed to <data>/signals.db
// (or Redis); a rebuild folds the window into searchTrend, the staff reload route switches the shim to it, and
// sort=searchTrend then orders listings by exactly those counts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild, type BuildOptions } from '../../build/build-pipeline.ts';
import { readSignalWindow } from '../../build/search-trend.ts';
import { loadConfig } from '../../src/config.ts';
import { searchTrendScore } from '../../src/domain/listing/ranking.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import type { Listing, ListingPage, StaffBuildStatus } from '../../src/domain/schemas.ts';
import type { SignalCounts } from '../../src/signal-stores/counter-store.ts';
import { sampleRecords, writeExport } from '../support/fixtures.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { bearer, ISSUER, mint } from '../auth/tokens.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();

const SECRET = 'a-test-secret-of-at-least-thirty-two-bytes';
const staffEnv = { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_SECRET: SECRET };
const records = sampleRecords(30, ['pdf']);
/** searchTrend lives in the runtime artifacts: the index stage is the whole build these tests need. */
const build = (options: Omit<BuildOptions, 'baseUrl' | 'quiet' | 'stages'>) =>
  runBuild({ ...options, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE] });

/** What the test itself saw the shim return: the expected counters, per listing id. */
class Tally {
  readonly counts = new Map<string, SignalCounts>();
  private bump(id: string, kind: keyof SignalCounts) {
    const c = this.counts.get(id) ?? { appeared: 0, opened: 0 };
    c[kind]++;
    this.counts.set(id, c);
  }
  async search(server: TestServer, query: string): Promise<Listing[]> {
    const page = await json<ListingPage>(await server.fetch(`/api/v1/listings?${query}`));
    if (!/(?:^|&)(offset|cursor)=/.test(query)) for (const item of page.items) this.bump(item.id, 'appeared');
    return page.items;
  }
  async open(server: TestServer, idOrSlug: string, id: string): Promise<void> {
    expect((await server.fetch(`/api/v1/listings/${encodeURIComponent(idOrSlug)}`)).status).toBe(200);
    this.bump(id, 'opened');
  }
  async page(server: TestServer, path: string, id: string): Promise<void> {
    expect((await server.fetch(path)).status).toBe(200);
    this.bump(id, 'opened');
  }
}

const waitFor = async <T>(read: () => Promise<T> | T, done: (value: T) => boolean, ms = 8000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const sameCounts = (a: Map<string, SignalCounts>, b: Map<string, SignalCounts>) =>
  a.size === b.size && [...a].every(([id, c]) => b.get(id)?.appeared === c.appeared && b.get(id)?.opened === c.opened);

const expectedOrder = (tally: Tally) =>
  [...tally.counts]
    .map(([id, c]) => ({ id, score: searchTrendScore(c) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .map((e) => e.id);

describe('searchTrend through SQLite', () => {
  const dataDir = tempDir('catalog-signals-');
  let server: TestServer;
  let firstBuild: string;
  const tally = new Tally();
  const quiet = records[records.length - 1]!;
  const pdf = records.find((r) => r.slug === 'pdf')!;

  beforeAll(async () => {
    ({ buildDir: firstBuild } = await build({ dataDir, exportPath: writeExport(join(dataDir, 'export'), records) }));
    // A listing page where the site stage would write it, so serving it can count as an open.
    const file = join(firstBuild, 'site', `${SITE_PATHS.listing(quiet.slug).slice(0, -1)}.html`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `<!doctype html><title>${quiet.name}</title>`);
    server = await startInProcess({}, { buildDir: firstBuild }, { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'on', SIGNALS_FLUSH_SECONDS: '1', ...staffEnv });
  });
  afterAll(() => server?.close());

  it('before any search every listing has searchTrend 0', async () => {
    const items = await tally.search(server, 'sort=searchTrend&limit=20');
    expect(items.every((l) => l.searchTrend === 0)).toBe(true);
  });

  it('counts first-page appearances and opens, never deeper pages, and flushes them to signals.db', async () => {
    for (let i = 0; i < 3; i++) await tally.search(server, `q=${encodeURIComponent(pdf.name)}`);
    await tally.search(server, 'type=workflow&limit=5');
    await tally.search(server, 'type=workflow&limit=5');
    const deeper = await tally.search(server, 'type=mcp&limit=5&offset=20');
    for (let i = 0; i < 4; i++) await tally.open(server, quiet.id, quiet.id);
    await tally.open(server, quiet.slug, quiet.id);
    await tally.page(server, SITE_PATHS.listing(quiet.slug), quiet.id);
    await tally.page(server, SITE_PATHS.listing(quiet.slug).replace(/\/$/, ''), quiet.id);
    // Not opens: a HEAD of the page, a page that does not exist, a missing listing.
    expect((await server.fetch(SITE_PATHS.listing(quiet.slug), { method: 'HEAD' })).status).toBe(200);
    expect((await server.fetch(SITE_PATHS.listing('no-such-listing'))).status).toBe(404);
    expect((await server.fetch('/api/v1/listings/no-such-listing')).status).toBe(404);

    expect(deeper.length).toBeGreaterThan(0);
    for (const item of deeper) expect(tally.counts.has(item.id)).toBe(false);
    expect(tally.counts.get(quiet.id)).toEqual({ appeared: 0, opened: 7 });

    const stored = await waitFor(
      () => readSignalWindow({ dataDir }),
      (counts) => sameCounts(counts, tally.counts),
    );
    expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(tally.counts));
  });

  it('keeps counts only: a day, a listing id and two numbers per row', () => {
    const db = new Database(join(dataDir, 'signals.db'), { readonly: true });
    const columns = (db.prepare("SELECT name FROM pragma_table_info('daily_signal')").all() as Array<{ name: string }>).map((c) => c.name);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    db.close();
    expect(tables).toEqual(['daily_signal']);
    expect(columns).toEqual(['day', 'listing_id', 'appeared', 'opened']);
  });

  it('a rebuild folds the counts into searchTrend; the staff reload route switches the shim and sort=searchTrend follows', async () => {
    const { buildDir } = await build({ dataDir });
    expect(buildDir).not.toBe(firstBuild);

    expect((await server.fetch('/api/v1/staff/reload', { method: 'POST' })).status).toBe(401);
    const token = await mint(new TextEncoder().encode(SECRET), { roles: ['staff'] }, { alg: 'HS256' });
    const res = await server.fetch('/api/v1/staff/reload', { method: 'POST', headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const status = await json<StaffBuildStatus>(res);
    expect(status.build).toBe(basename(buildDir));
    expect(status.count).toBe(records.length);

    const order = expectedOrder(tally);
    const page = await json<ListingPage>(await server.fetch(`/api/v1/listings?sort=searchTrend&limit=${order.length}`));
    expect(page.items.map((l) => l.id)).toEqual(order);
    expect(page.items[0]!.id).toBe(quiet.id);
    for (const item of page.items) expect(item.searchTrend).toBeCloseTo(searchTrendScore(tally.counts.get(item.id)!), 4);
    const rest = await json<ListingPage>(await server.fetch(`/api/v1/listings?sort=searchTrend&limit=5&offset=${order.length}`));
    expect(rest.items.every((l) => l.searchTrend === 0)).toBe(true);
  });

  it('reloading when the newest build is already served answers its status and changes nothing', async () => {
    const token = await mint(new TextEncoder().encode(SECRET), { roles: ['staff'] }, { alg: 'HS256' });
    const before = server.app.services.catalog.current;
    const res = await server.fetch('/v1/staff/reload', { method: 'POST', headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(server.app.services.catalog.current).toBe(before);
  });
});

describe('searchTrend through Redis', () => {
  const dataDir = tempDir('catalog-signals-redis-');
  let redis: TestRedis;
  let server: TestServer;
  const tally = new Tally();

  beforeAll(async () => {
    redis = await startRedis();
    const { buildDir } = await build({ dataDir, exportPath: writeExport(join(dataDir, 'export'), records) });
    server = await startInProcess({}, { buildDir }, { CATALOG_DATA_DIR: dataDir, REDIS_URL: redis.url, SIGNALS_FLUSH_SECONDS: '1' });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });

  it('the shims count into one hash per day and kind; the rebuild reads them from REDIS_URL', async () => {
    await tally.search(server, 'type=plugin&limit=4');
    await tally.search(server, 'q=pdf');
    const target = records.find((r) => r.type === 'marketplace')!;
    for (let i = 0; i < 3; i++) await tally.open(server, target.id, target.id);

    const stored = await waitFor(
      () => readSignalWindow({ dataDir, redisUrl: redis.url }),
      (counts) => sameCounts(counts, tally.counts),
    );
    expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(tally.counts));
    // Nothing was written beside the snapshot: Redis holds the counters.
    expect((await readSignalWindow({ dataDir })).size).toBe(0);

    // The CLI hands the pipeline REDIS_URL through the loaded Config, as here.
    const { buildDir } = await build({ dataDir, redisUrl: loadConfig({ REDIS_URL: redis.url }).redisUrl });
    server.app.reload(buildDir);
    const order = expectedOrder(tally);
    const page = await json<ListingPage>(await server.fetch(`/api/v1/listings?sort=searchTrend&limit=${order.length}`));
    expect(page.items.map((l) => l.id)).toEqual(order);
    expect(page.items[0]!.id).toBe(target.id);
  });
});
