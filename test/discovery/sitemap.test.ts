// Guarantees /sitemap.xml is a sitemaps.org index whose shards each stay within 50,000 URLs and 50 MB and together
// list every listing page once plus the static, docs, type, category and comparison pages, with lastmod from the
// snapshot; and that the generator splits a catalog past the limits into several shards.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { sitemapFilesFrom, SITEMAP_LIMITS, SITEMAP_XMLNS, w3cDatetime, type SitemapUrl } from '../../build/stages/discovery/sitemap.ts';
import { loadDocs } from '../../src/docs/index.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { SHORTLIST } from '../../src/domain/listing/shortlists.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import type { GeneratedFile } from '../../build/site-writer.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { readBuiltCatalog } from '../site/site-expectations.ts';
import { OWNER_PAGE_MIN_LISTINGS } from '../../src/domain/listing/owner-figures.ts';

interface UrlSet {
  urlset: { '@_xmlns': string; url: SitemapUrl[] };
}
interface SitemapIndex {
  sitemapindex: { '@_xmlns': string; sitemap: SitemapUrl[] };
}
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});
const parse = <T>(xml: string): T => {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as T;
};

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

describe('/sitemap.xml over HTTP', () => {
  let index: SitemapUrl[];
  const shards = new Map<string, { urls: SitemapUrl[]; bytes: number }>();

  beforeAll(async () => {
    const res = await server.fetch('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const document = parse<SitemapIndex>(await res.text());
    expect(document.sitemapindex['@_xmlns']).toBe(SITEMAP_XMLNS);
    index = document.sitemapindex.sitemap;
    for (const entry of index) {
      const shard = await server.fetch(entry.loc.slice(TEST_BASE_URL.length));
      expect(shard.status, entry.loc).toBe(200);
      const text = await shard.text();
      const set = parse<UrlSet>(text);
      expect(set.urlset['@_xmlns']).toBe(SITEMAP_XMLNS);
      shards.set(entry.loc, { urls: set.urlset.url, bytes: Buffer.byteLength(text) });
    }
  });

  it('is an index of shards /sitemaps/<name>-<n>.xml on this origin, each within the protocol limits', () => {
    expect(index.length).toBeGreaterThanOrEqual(3);
    for (const entry of index) {
      expect(entry.loc).toMatch(new RegExp(`^${TEST_BASE_URL}/sitemaps/[a-z]+-\\d+\\.xml$`));
      const shard = shards.get(entry.loc)!;
      expect(shard.urls.length).toBeGreaterThan(0);
      expect(shard.urls.length).toBeLessThanOrEqual(SITEMAP_LIMITS.urls);
      expect(shard.bytes).toBeLessThanOrEqual(SITEMAP_LIMITS.bytes);
      // A shard's lastmod is the latest of its URLs'.
      expect(entry.lastmod).toBe(
        shard.urls
          .map((u) => u.lastmod)
          .sort()
          .at(-1),
      );
    }
  });

  it('lists every listing once and every page, and nothing else', async () => {
    const stats = await json<{ total: number }>(await server.fetch('/api/v1/catalog/stats'));
    const categories = await json<Array<{ type: string; name: string; count: number }>>(await server.fetch('/api/v1/categories'));
    const all = [...shards.values()].flatMap((s) => s.urls.map((u) => u.loc));
    expect(new Set(all).size).toBe(all.length);
    const listingUrls = all.filter((loc) => loc.startsWith(`${TEST_BASE_URL}/listings/`));
    expect(listingUrls).toHaveLength(stats.total);

    const pages = [
      SITE_PATHS.home,
      SITE_PATHS.browse,
      SITE_PATHS.mcpHub,
      SITE_PATHS.docsIndex,
      ...loadDocs().map((doc) => SITE_PATHS.doc(doc.slug)),
      ...LISTING_TYPES.map((type) => SITE_PATHS.type(type)),
    ];
    const categoryPages = categories.flatMap((c) => {
      const type = c.type as (typeof LISTING_TYPES)[number];
      return [SITE_PATHS.category(type, c.name), ...(c.count >= SHORTLIST.minListings ? [SITE_PATHS.compare(type, c.name)] : [])];
    });
    // One page per owner (the first part of a listing repo) of OWNER_PAGE_MIN_LISTINGS listings or more.
    const built = readBuiltCatalog(await sharedBuildDir());
    const ownerPages = [...built.ownerListings].filter(([, n]) => n >= OWNER_PAGE_MIN_LISTINGS).map(([owner]) => SITE_PATHS.owner(owner));
    expect(ownerPages.length).toBeGreaterThan(1000);
    const expected = [...pages, ...categoryPages, ...ownerPages].map((path) => TEST_BASE_URL + path);
    expect(all.filter((loc) => !loc.startsWith(`${TEST_BASE_URL}/listings/`)).sort()).toEqual(expected.sort());
    expect(all).toHaveLength(stats.total + expected.length);
  });

  it('gives each listing page its URL and its updatedAt as lastmod, and other pages the snapshot time', async () => {
    const meta = await json<{ lastUpdated: string }>(await server.fetch('/api/v1/meta'));
    const byLoc = new Map([...shards.values()].flatMap((s) => s.urls.map((u) => [u.loc, u.lastmod] as const)));
    const page = await json<{ items: Array<{ url: string; updatedAt: string }> }>(await server.fetch('/api/v1/listings?limit=200&sort=trending'));
    for (const listing of page.items) expect(byLoc.get(listing.url), listing.url).toBe(w3cDatetime(listing.updatedAt));
    // An owner page changes with its newest listing.
    const owned = (
      await json<{ items: Array<{ repo: string; updatedAt: string }> }>(await server.fetch('/api/v1/listings?owner=vercel-labs&limit=2000'))
    ).items.filter((l) => l.repo.startsWith('vercel-labs/'));
    const newest = owned
      .map((l) => w3cDatetime(l.updatedAt)!)
      .sort()
      .at(-1);
    expect(byLoc.get(TEST_BASE_URL + SITE_PATHS.owner('vercel-labs'))).toBe(newest);
    expect(byLoc.get(TEST_BASE_URL + SITE_PATHS.home)).toBe(w3cDatetime(meta.lastUpdated));
    for (const lastmod of byLoc.values()) expect(lastmod).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});

describe('splitting into shards (the pure generator)', () => {
  const synthetic = function* (n: number): Generator<SitemapUrl> {
    for (let i = 0; i < n; i++)
      yield { loc: `https://example.org/listings/listing-${i}/`, lastmod: `2026-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z` };
  };
  const urlCount = (file: GeneratedFile) => String(file.body).split('<url>').length - 1;

  it('splits 120,001 URLs into three shards of at most 50,000, indexed in order', async () => {
    const files = await Array.fromAsync(sitemapFilesFrom('https://example.org', [{ name: 'listings', urls: synthetic(120_001) }]));
    expect(files.map((f) => f.path)).toEqual(['/sitemaps/listings-1.xml', '/sitemaps/listings-2.xml', '/sitemaps/listings-3.xml', '/sitemap.xml']);
    expect(files.slice(0, 3).map(urlCount)).toEqual([50_000, 50_000, 20_001]);
    const last = parse<UrlSet>(String(files[2]!.body));
    expect(last.urlset.url[0]!.loc).toBe('https://example.org/listings/listing-100000/');
    expect(last.urlset.url.at(-1)!.loc).toBe('https://example.org/listings/listing-120000/');
    const indexDoc = parse<SitemapIndex>(String(files[3]!.body));
    expect(indexDoc.sitemapindex.sitemap).toEqual(
      [1, 2, 3].map((n) => ({ loc: `https://example.org/sitemaps/listings-${n}.xml`, lastmod: '2026-01-28T00:00:00Z' })),
    );
  });

  it('closes a shard before it would pass the byte limit, and never writes one over it', async () => {
    const limits = { urls: SITEMAP_LIMITS.urls, bytes: 20_000 };
    const files = await Array.fromAsync(
      sitemapFilesFrom(
        'https://example.org',
        [
          { name: 'a', urls: synthetic(1000) },
          { name: 'b', urls: synthetic(3) },
        ],
        limits,
      ),
    );
    const shards = files.filter((f) => f.path !== '/sitemap.xml');
    expect(shards.length).toBeGreaterThan(4);
    for (const shard of shards) expect(Buffer.byteLength(String(shard.body))).toBeLessThanOrEqual(limits.bytes);
    // Filling: every shard but a group's last is within one URL of the limit.
    const full = shards.filter((s) => s.path.startsWith('/sitemaps/a-')).slice(0, -1);
    for (const shard of full) expect(Buffer.byteLength(String(shard.body))).toBeGreaterThan(limits.bytes - 200);
    expect(shards.filter((s) => s.path.startsWith('/sitemaps/a-')).reduce((n, s) => n + urlCount(s), 0)).toBe(1000);
    expect(shards.filter((s) => s.path.startsWith('/sitemaps/b-')).map((s) => s.path)).toEqual(['/sitemaps/b-1.xml']);
  });

  it('counts bytes exactly: a shard exactly at the limit stays whole, one byte less splits it', async () => {
    const urls = [
      { loc: "https://example.org/a?b=1&c='x\"<y>'é", lastmod: '2026-01-01T00:00:00Z' },
      { loc: 'https://example.org/b', lastmod: '2026-01-02T00:00:00Z' },
    ];
    const shardsAt = async (bytes: number) =>
      (await Array.fromAsync(sitemapFilesFrom('https://example.org', [{ name: 'a', urls }], { urls: 10, bytes }))).filter((f) => f.path !== '/sitemap.xml');
    const [whole] = await shardsAt(SITEMAP_LIMITS.bytes);
    const size = Buffer.byteLength(String(whole!.body));
    expect(await shardsAt(size)).toHaveLength(1);
    expect(await shardsAt(size - 1)).toHaveLength(2);
  });

  it('escapes URLs as XML text and counts the escaped bytes', async () => {
    const urls = [{ loc: "https://example.org/?a=1&b='2'", lastmod: '2026-01-01T00:00:00Z' }];
    const [shard] = await Array.fromAsync(sitemapFilesFrom('https://example.org', [{ name: 'q', urls }]));
    expect(String(shard!.body)).toContain('<loc>https://example.org/?a=1&amp;b=&apos;2&apos;</loc>');
    expect(parse<UrlSet>(String(shard!.body)).urlset.url[0]!.loc).toBe("https://example.org/?a=1&b='2'");
  });
});
