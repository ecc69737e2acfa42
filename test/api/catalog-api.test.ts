// Guarantees every catalog route of SERVICE.md 4.1 answers over real HTTP with the CONTRACT.md shapes,
// aliases, defaults and limits, and that every sort and pagination form walks a result without gaps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchResultSchema,
  CatalogStatsSchema,
  CategorySchema,
  ListingFileSchema,
  ListingPageSchema,
  ListingSchema,
  SiteMetaSchema,
  StageSchema,
  VersioningPolicySchema,
} from '../../src/domain/schemas.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { snapshotRecords } from '../support/fixtures.ts';
import { z } from 'zod';

type Listing = z.infer<typeof ListingSchema>;
type Page = z.infer<typeof ListingPageSchema>;

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const page = async (query: string): Promise<Page> => {
  const res = await server.fetch(`/api/v1/listings?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ListingPageSchema.parse(await json(res));
};
const ids = (items: Listing[]) => items.map((l) => l.id);
const byIdAsc = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('listing search envelope and raw array', () => {
  it('returns a ListingPage with the default limit of 20 sorted by installs', async () => {
    const body = await page('');
    expect(body.items).toHaveLength(20);
    expect(body.limit).toBe(20);
    expect(body.offset).toBe(0);
    expect(body.hasMore).toBe(true);
    expect(body.cursor).toBe(body.pageToken);
    expect(body.next).toMatch(new RegExp(`^${TEST_BASE_URL}/api/v1/listings\\?`));
    for (let i = 1; i < body.items.length; i++) expect(body.items[i - 1]!.installs).toBeGreaterThanOrEqual(body.items[i]!.installs);
    expect(body.items[0]!.url).toBe(`${TEST_BASE_URL}/listings/${body.items[0]!.slug}/`);
  });

  it.each(['/v1/listings', '/sandbox/listings'])('%s is the same operation as /api/v1/listings', async (path) => {
    const [a, b] = await Promise.all([server.fetch(`${path}?limit=5&type=mcp`).then(json<Page>), page('limit=5&type=mcp')]);
    expect(ids(a.items)).toEqual(ids(b.items));
    expect(a.hasMore).toBe(b.hasMore);
  });

  it('/api/upstream/listings returns a raw array with the same items', async () => {
    const raw = await json<Listing[]>(await server.fetch('/api/upstream/listings?limit=7&sort=stars'));
    expect(Array.isArray(raw)).toBe(true);
    raw.forEach((item) => ListingSchema.parse(item));
    expect(ids(raw)).toEqual(ids((await page('limit=7&sort=stars')).items));
  });

  it('every listing carries the CONTRACT fields and says which metrics are real', async () => {
    const body = await page('limit=200&types=skill,mcp,plugin,marketplace,workflow');
    for (const item of body.items) {
      ListingSchema.parse(item);
      expect(item.id).toBe(`${item.type}:${item.repo}#${item.slug}`);
      expect(['real', 'synthetic']).toContain(item.metrics.installs);
      expect(['real', 'synthetic']).toContain(item.metrics.stars);
    }
  });
});

describe('filters', () => {
  it.each(LISTING_TYPES)('type=%s returns only that type', async (type) => {
    const body = await page(`type=${type}&limit=50`);
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.every((l) => l.type === type)).toBe(true);
  });

  it('types takes a comma-separated list', async () => {
    const body = await page('types=workflow,marketplace&limit=200');
    expect(new Set(body.items.map((l) => l.type))).toEqual(new Set(['workflow', 'marketplace']));
  });

  it("category matches any of a listing's categories, not only the primary one", async () => {
    const body = await page('category=databases&limit=2000');
    expect(body.items.every((l) => l.categories.includes('databases'))).toBe(true);
    expect(body.items.some((l) => l.category !== 'databases')).toBe(true);
  });

  it('owner matches the repository owner or the author, case-insensitively', async () => {
    const body = await page('owner=AnThRoPiCs&limit=100');
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.every((l) => l.repo.split('/')[0]!.toLowerCase() === 'anthropics' || l.author.toLowerCase() === 'anthropics')).toBe(true);
  });

  it('filters combine', async () => {
    const body = await page('q=postgres&type=mcp&category=databases&limit=50');
    expect(body.items.length).toBeGreaterThan(0);
    for (const l of body.items) {
      expect(l.type).toBe('mcp');
      expect(l.categories).toContain('databases');
      expect(`${l.name} ${l.description} ${l.repo} ${l.author} ${l.tags.join(' ')}`.toLowerCase()).toContain('postgre');
    }
  });

  it('q finds listings whose description is empty by name, repo and author', async () => {
    const empty = (await page('limit=2000&type=skill&offset=2000')).items.concat((await page('limit=2000&type=skill')).items).find((l) => l.description === '');
    expect(empty, 'the snapshot has skills with empty descriptions').toBeDefined();
    for (const q of [empty!.name, empty!.repo.split('/')[1]!, empty!.author]) {
      const found = await page(`q=${encodeURIComponent(q)}&limit=2000`);
      expect(ids(found.items), `q=${q}`).toContain(empty!.id);
    }
  });

  it('q ranks an exact name match first', async () => {
    const body = await page('q=pdf&limit=5');
    expect(body.items[0]!.name.toLowerCase()).toBe('pdf');
  });

  it('an unknown owner is an empty result; an unknown category is a 400 like an unknown type (test/api/unknown-category.test.ts)', async () => {
    expect((await page('owner=no-such-owner-anywhere')).items).toEqual([]);
    expect((await server.fetch('/api/v1/listings?category=no-such-category')).status).toBe(400);
  });

  // Without embeddings (or while they load) the same request falls back to keyword search: test/semantic/fallback.test.ts.
  it('semantic answers in hybrid mode once the embeddings are loaded, and says so', async () => {
    expect(await server.app.semantic.settled).toBe('ready');
    const res = await server.fetch('/api/v1/listings?semantic=' + encodeURIComponent('a server to query postgres databases'));
    expect(res.status).toBe(200);
    expect(res.headers.get('search-mode')).toBe('hybrid');
    const body = ListingPageSchema.parse(await json(res));
    expect(body.items.length).toBeGreaterThan(0);
  });
});

describe('sorts', () => {
  const value = {
    installs: (l: Listing) => l.installs,
    stars: (l: Listing) => l.stars,
    trending: (l: Listing) => l.trending,
    searchTrend: (l: Listing) => l.searchTrend,
  };
  it.each(Object.keys(value) as Array<keyof typeof value>)('sort=%s orders by the value descending, ties by id ascending', async (sort) => {
    const body = await page(`sort=${sort}&limit=2000&type=skill`);
    const v = value[sort];
    for (let i = 1; i < body.items.length; i++) {
      const [a, b] = [body.items[i - 1]!, body.items[i]!];
      expect(v(a)).toBeGreaterThanOrEqual(v(b));
      if (v(a) === v(b)) expect(byIdAsc(a.id, b.id)).toBe(-1);
    }
  });

  it('sort applies to keyword results too', async () => {
    const body = await page('q=server&sort=stars&limit=100');
    for (let i = 1; i < body.items.length; i++) expect(body.items[i - 1]!.stars).toBeGreaterThanOrEqual(body.items[i]!.stars);
  });

  it('trending is computed from the install history', async () => {
    const top = (await page('sort=trending&limit=1')).items[0]!;
    const h = top.installsHistory.slice(-30);
    const recent = h[29]! - h[22]!;
    const expected = ((h[22]! - h[0]!) / 22) * 7;
    expect(top.trending).toBeCloseTo((recent - expected) / Math.sqrt(expected + 10), 2);
  });
});

describe('pagination', () => {
  it('a cursor walk of a filtered result equals the same result through offsets, with no repeats or gaps', async () => {
    const filter = 'category=security&types=skill,mcp&sort=stars';
    const viaCursor: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const body: Page = await page(`${filter}&limit=97${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      viaCursor.push(...ids(body.items));
      cursor = body.cursor;
      expect(body.pageToken).toBe(body.cursor);
      pages++;
    }
    const viaOffset: string[] = [];
    for (let offset = 0; ; offset += 250) {
      const body = await page(`${filter}&limit=250&offset=${offset}`);
      viaOffset.push(...ids(body.items));
      if (!body.hasMore) break;
    }
    expect(pages).toBeGreaterThan(3);
    expect(new Set(viaCursor).size).toBe(viaCursor.length);
    expect(viaCursor).toEqual(viaOffset);
    const all = await page(`${filter}&limit=2000`);
    expect(all.hasMore).toBe(false);
    expect(viaOffset).toEqual(ids(all.items));
  });

  it('pageToken is an alias of the cursor, and a plain offset works as a pageToken', async () => {
    const first = await page('limit=10&type=mcp');
    const [byToken, byCursor, byOffset, byNumber] = await Promise.all([
      page(`limit=10&type=mcp&pageToken=${first.pageToken}`),
      page(`limit=10&type=mcp&cursor=${first.cursor}`),
      page('limit=10&type=mcp&offset=10'),
      page('limit=10&type=mcp&pageToken=10'),
    ]);
    expect(ids(byToken.items)).toEqual(ids(byOffset.items));
    expect(ids(byCursor.items)).toEqual(ids(byOffset.items));
    expect(ids(byNumber.items)).toEqual(ids(byOffset.items));
    expect(byOffset.offset).toBe(10);
  });

  it('next is an absolute URL that fetches the next page', async () => {
    const first = await page('limit=3&q=browser');
    const nextPath = first.next!.slice(TEST_BASE_URL.length);
    const second = ListingPageSchema.parse(await json(await server.fetch(nextPath)));
    expect(ids(second.items)).toEqual(ids((await page('limit=3&q=browser&offset=3')).items));
  });

  it('pageSize is an alias of limit; empty pageToken means the first page', async () => {
    const body = await page('pageSize=7&pageToken=');
    expect(body.items).toHaveLength(7);
    expect(body.offset).toBe(0);
  });

  it('the last page has hasMore false and null next/cursor/pageToken', async () => {
    const body = await page('type=workflow&limit=2000');
    expect(body.hasMore).toBe(false);
    expect(body.next).toBeNull();
    expect(body.cursor).toBeNull();
    expect(body.pageToken).toBeNull();
  });
});

describe('listing by id, files and batch', () => {
  it.each([
    ['plain slug', 'pdf'],
    ['path-style id, URL-encoded', encodeURIComponent('skill:anthropics/skills#pdf')],
  ])('resolves the %s', async (_, id) => {
    for (const prefix of ['/api/v1', '/api/upstream', '/v1']) {
      const res = await server.fetch(`${prefix}/listings/${id}`);
      expect(res.status).toBe(200);
      const listing = ListingSchema.parse(await json(res));
      expect(listing.id).toBe('skill:anthropics/skills#pdf');
    }
  });

  it('files: SKILL.md first, then bundled files in path order', async () => {
    const listing = ListingSchema.parse(await json(await server.fetch('/api/v1/listings/vercel-react-best-practices')));
    const files = z.array(ListingFileSchema).parse(await json(await server.fetch('/api/upstream/listings/vercel-react-best-practices/files')));
    expect(files.length).toBeGreaterThan(3);
    expect(files.map((f) => f.path)).toEqual(listing.files);
    expect(files[0]!.path).toBe('SKILL.md');
    const rest = files.slice(1).map((f) => f.path);
    expect(rest).toEqual([...rest].sort());
    expect(files[0]!.content).toContain('vercel-react-best-practices');
    expect(files[0]!.mediaType).toBe('text/markdown');
    for (const file of files) expect(file.size).toBe(Buffer.byteLength(file.content));
  });

  it('files of a listing without stored files is [] and of an unknown id is 404', async () => {
    const mcp = (await page('type=mcp&limit=1')).items[0]!;
    expect(await json(await server.fetch(`/api/v1/listings/${mcp.slug}/files`))).toEqual([]);
    expect((await server.fetch('/api/v1/listings/no-such-listing-xyz/files')).status).toBe(404);
  });

  it('an unknown id is 404 and an over-long id is 400 naming the parameter', async () => {
    const missing = await server.fetch('/api/v1/listings/no-such-listing-xyz');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: 'not_found' });
    const long = await server.fetch(`/api/v1/listings/${'a'.repeat(257)}`);
    expect(long.status).toBe(400);
    expect((await json<{ message: string }>(long)).message).toContain("'id'");
  });

  it('batch resolves both id forms with the same lookup and reports the rest in notFound', async () => {
    const res = await server.fetch('/api/v1/listings/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids: ['pdf', 'skill:anthropics/skills#pdf', 'nope-nope', 'find-skills'] }),
    });
    expect(res.status).toBe(200);
    const body = BatchResultSchema.parse(await json(res));
    expect(ids(body.items as Listing[])).toEqual(['skill:anthropics/skills#pdf', 'skill:vercel-labs/skills#find-skills']);
    expect(body.notFound).toEqual(['nope-nope']);
  });

  it.each([
    ['more than 25 ids', JSON.stringify({ ids: Array.from({ length: 26 }, (_, i) => `id-${i}`) }), 'application/json', 400],
    ['no ids field', JSON.stringify({}), 'application/json', 400],
    ['ids not an array', JSON.stringify({ ids: 'pdf' }), 'application/json', 400],
    ['an empty id', JSON.stringify({ ids: [''] }), 'application/json', 400],
    ['not JSON', '{ids: [', 'application/json', 400],
    ['no body', '', 'application/json', 400],
    ['a non-JSON content type', JSON.stringify({ ids: ['pdf'] }), 'text/plain', 415],
  ])('batch with %s is a clear error', async (_, body, contentType, status) => {
    const res = await server.fetch('/api/v1/listings/batch', { method: 'POST', headers: { 'content-type': contentType }, body });
    expect(res.status).toBe(status);
    const error = await json<{ code: string; message: string; resolution: string }>(res);
    expect(error.code).toMatch(/^[a-z_]+$/);
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.resolution.length).toBeGreaterThan(0);
  });
});

describe('catalog resources', () => {
  it.each(['/api/upstream/catalog/stats', '/api/v1/catalog/stats'])('%s counts each type and sums installs', async (path) => {
    const stats = CatalogStatsSchema.parse(await json(await server.fetch(path)));
    expect(stats.total).toBe(Object.values(stats.byType).reduce((a, b) => a + b, 0));
    expect(stats.total).toBe(30950);
    expect(stats.byType.skill).toBe(13725);
    expect(stats.installs).toBe(Object.values(stats.installsByType).reduce((a, b) => a + b, 0));
  });

  it.each(['/api/upstream/meta', '/api/v1/meta'])('%s has brand, tagline, disclaimer and last-updated time', async (path) => {
    const meta = SiteMetaSchema.parse(await json(await server.fetch(path)));
    expect(meta.brand).toBe('catalog');
    expect(meta.disclaimer).toMatch(/independent/i);
    expect(Number.isNaN(Date.parse(meta.lastUpdated))).toBe(false);
  });

  it('stages come in journey order', async () => {
    const stages = z.array(StageSchema).parse(await json(await server.fetch('/api/upstream/stages')));
    expect(stages.map((s) => s.name)).toEqual(['Idea', 'Validate', 'Build', 'Ship', 'Launch', 'Grow', 'Operate']);
    expect(stages.map((s) => s.order)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('categories are {type, name} pairs that the category filter accepts', async () => {
    const categories = z.array(CategorySchema).parse(await json(await server.fetch('/api/upstream/categories')));
    expect(categories.length).toBeGreaterThan(100);
    const sample = categories.find((c) => c.type === 'mcp' && c.name === 'databases')!;
    const body = await page(`type=mcp&category=databases&limit=2000`);
    expect(body.items.length).toBe(Math.min(2000, sample.count));
  });

  it('GET /api/v1 is the versioning policy', async () => {
    const policy = VersioningPolicySchema.parse(await json(await server.fetch('/api/v1')));
    expect(policy).toEqual({
      current: '1',
      versions: ['1'],
      pathPrefix: '/api/v1',
      aliases: ['/v1/'],
      header: 'API-Version',
      deprecated: [],
      deprecationHeaders: ['Deprecation', 'Sunset', 'Link'],
    });
  });

  it('/sandbox describes a read-only surface with no writes and no tokens', async () => {
    const sandbox = await json<Record<string, unknown>>(await server.fetch('/sandbox'));
    expect(sandbox).toMatchObject({ readOnly: true, writes: false, tokens: false });
  });
});

describe('total', () => {
  /** Every listing of a query, collected page by page (limit 100), with the total each page announced. */
  async function walk(query: string): Promise<{ ids: string[]; totals: Set<number> }> {
    const seen: string[] = [];
    const totals = new Set<number>();
    for (let offset = 0; ; offset += 100) {
      const body = await page(`${query}&limit=100&offset=${offset}`);
      seen.push(...ids(body.items));
      totals.add(body.total);
      if (!body.hasMore) return { ids: seen, totals };
    }
  }

  it('is the whole catalog without filters, and the type count with a type filter', async () => {
    const records = snapshotRecords();
    expect((await page('limit=1')).total).toBe(records.length);
    for (const type of LISTING_TYPES) expect((await page(`limit=1&type=${type}`)).total, type).toBe(records.filter((r) => r.type === type).length);
    expect((await page('limit=1&types=mcp,plugin')).total).toBe(records.filter((r) => r.type === 'mcp' || r.type === 'plugin').length);
  });

  it.each([
    'q=pdf',
    'q=pdf&type=skill',
    'q=postgres&sort=stars',
    'q=browser%20automation',
    'type=mcp&category=databases',
    'type=skill&category=documents&sort=trending',
    'owner=anthropics',
    'owner=anthropics&type=skill&sort=installs',
    'semantic=read%20a%20spreadsheet',
  ])('%s: every page announces the number of listings the pages hold in all', async (query) => {
    const { ids: all, totals } = await walk(query);
    expect(all.length).toBeGreaterThan(0);
    expect([...totals]).toEqual([all.length]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('is 0 when nothing matches', async () => {
    expect((await page('q=zzzzqqqqxxxx')).total).toBe(0);
    expect((await page('owner=no-such-owner-anywhere')).total).toBe(0);
  });
});

describe('updatedSince', () => {
  const records = snapshotRecords();
  const since = [...records].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))[150]!.updatedAt;
  const expected = (filter: (r: (typeof records)[number]) => boolean) =>
    records.filter((r) => Date.parse(r.updatedAt) >= Date.parse(since) && filter(r)).length;

  it('keeps the listings updated at or after the instant, on every page and in the total', async () => {
    const body = await page(`updatedSince=${encodeURIComponent(since)}&limit=100`);
    expect(body.total).toBe(expected(() => true));
    expect(body.total).toBeGreaterThanOrEqual(150);
    for (const item of body.items) expect(Date.parse(item.updatedAt)).toBeGreaterThanOrEqual(Date.parse(since));
    const skills = await page(`updatedSince=${encodeURIComponent(since)}&type=skill&sort=stars&limit=5`);
    expect(skills.total).toBe(expected((r) => r.type === 'skill'));
    for (const item of skills.items) expect(item.type).toBe('skill');
  });

  it('takes any RFC 3339 offset: the same instant written in another zone gives the same answer', async () => {
    const instant = new Date(Date.parse(since));
    const shifted = new Date(instant.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const [a, b] = await Promise.all([
      page(`updatedSince=${encodeURIComponent(since)}&limit=10`),
      page(`updatedSince=${encodeURIComponent(shifted)}&limit=10`),
    ]);
    expect(ids(b.items)).toEqual(ids(a.items));
    expect(b.total).toBe(a.total);
  });

  it('with q, matches the words within the date window', async () => {
    const body = await page(`q=pdf&updatedSince=${encodeURIComponent('2026-01-01T00:00:00Z')}&limit=100`);
    for (const item of body.items) expect(Date.parse(item.updatedAt)).toBeGreaterThanOrEqual(Date.parse('2026-01-01T00:00:00Z'));
    const all = await page('q=pdf&limit=100');
    expect(body.total).toBeLessThanOrEqual(all.total);
  });

  it.each(['yesterday', '2026-08-01', '2026-13-01T00:00:00Z', '2026-08-01 00:00:00Z'])('refuses %s with a 400 naming the parameter', async (value) => {
    const res = await server.fetch(`/api/v1/listings?updatedSince=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('updatedSince') });
  });

  it('a cursor of one window does not page another', async () => {
    const first = await page(`updatedSince=${encodeURIComponent(since)}&limit=5`);
    const res = await server.fetch(`/api/v1/listings?updatedSince=2020-01-01T00:00:00Z&limit=5&cursor=${first.cursor}`);
    expect(res.status).toBe(400);
  });
});
