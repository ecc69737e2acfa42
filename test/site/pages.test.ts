// Guarantees the build made every page of the site and the shim serves it: each URL of the sitemap (every page
// but listings, and a sample of listing pages across shards) answers 200 HTML with its one right h1 and the
// disclaimer; pages agree with the API on rankings; /browse renders results and errors on the server; unknown
// pages get the HTML 404 in a browser and JSON otherwise; large pages are precompressed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { PAGE_COMPRESS_MIN_BYTES } from '../../build/page-compression.ts';
import { walkFiles } from '../../build/walk-files.ts';
import { LISTINGS_PER_SHARE, RENDERER_MEMORY_BYTES, renderPlan } from '../../build/stages/site-stage.ts';
import { DISCLAIMER } from '../../src/domain/brand.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../../src/domain/listing/listing-types.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { hasShortlist, SHORTLIST } from '../../src/domain/listing/shortlists.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { BROWSE_PAGE_SIZE, browseHref } from '../../src/page-model/browse-locals.ts';
import { figure } from '../../src/page-model/format.ts';
import { rankPart, type RankPart } from '../../src/page-model/rank-parts.ts';
import { json, startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { OWNER_PAGE_LISTINGS_PER_TYPE, OWNER_PAGE_MIN_LISTINGS } from '../../src/domain/listing/owner-figures.ts';
import { twoPerRepository } from '../support/top-lists.ts';
import { decodeEntities, expectedH1, headingsOf, readBuiltCatalog, textOf, type BuiltCatalog } from './site-expectations.ts';

const HTML = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const LISTING_SAMPLE = 200;

let server: TestServer;
let catalog: BuiltCatalog;
const buildDir = await sharedBuildDir();
beforeAll(async () => {
  server = await startServer();
  catalog = readBuiltCatalog(buildDir);
});
afterAll(() => server.close());

const page = async (path: string, init: RequestInit = {}): Promise<{ status: number; type: string; html: string; res: Response }> => {
  const res = await server.fetch(path, { ...init, headers: { ...HTML, ...(init.headers as Record<string, string>) } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', html: await res.text(), res };
};
/** Listing slugs in page order, from the rows of a listing list (links to SITE_PATHS.listing). */
const listedSlugs = (html: string): string[] => [...html.matchAll(/<a class="title" href="\/listings\/([^/]+)\/">/g)].map((m) => m[1]!);

describe('the build', () => {
  it('made one page per listing, the fixed pages and the server bundle of /browse', () => {
    const site = join(buildDir, 'site');
    // One file a listing, in one folder (astro.config.mjs: no folder per page).
    expect(readdirSync(join(site, 'listings')).filter((name) => name.endsWith('.html'))).toHaveLength(catalog.count);
    for (const file of ['index.html', '404.html', 'robots.txt', 'login/index.html', 'mcp/index.html', 'docs/index.html'])
      expect(existsSync(join(site, file)), file).toBe(true);
    expect(readdirSync(join(site, '_astro')).some((name) => name.endsWith('.css'))).toBe(true);
    expect(existsSync(join(buildDir, 'astro', 'server', 'entry.mjs'))).toBe(true);
  });

  it('split the listing and owner pages between renderers as the machine allows, and merged every share', () => {
    const stats = JSON.parse(readFileSync(join(buildDir, 'astro', 'site-stats.json'), 'utf8')) as { renderers: number; shares: number; pages: number };
    const plan = renderPlan(catalog.count);
    expect(stats).toMatchObject({ renderers: plan.workers, shares: plan.shares });
    // The other shares' outputs were merged into site/ and removed.
    expect(readdirSync(buildDir).filter((name) => name.startsWith('astro-') || name.startsWith('compress-'))).toEqual([]);
    // The renderers' own counts: each share's listing and owner pages, and the pages every share renders once. The
    // discovery stage's /.well-known/mcp/index.html is a JSON document, not a page.
    const files = [...walkFiles(join(buildDir, 'site'))];
    expect(stats.pages).toBe(files.filter((path) => path.endsWith('.html') && !path.startsWith('.well-known/')).length);
    expect(stats.pages).toBeGreaterThan(catalog.count);
  });

  it("gave .br and .gz to the rendered pages worth it, from the renderers' lists, and to no other", () => {
    const site = join(buildDir, 'site');
    const pages = [...walkFiles(site)].filter(
      (path) => /^(?:(?:listings|owners)\/[^/]+\.html|categories\/[^/]+\/[^/]+\/index\.html)$/.test(path) || path === 'index.html',
    );
    const large = pages.filter((path) => statSync(join(site, path)).size >= PAGE_COMPRESS_MIN_BYTES);
    expect(large.length).toBeGreaterThan(0);
    expect(large.length).toBeLessThan(pages.length);
    for (const path of pages) {
      const worth = large.includes(path);
      expect(existsSync(join(site, `${path}.br`)), path).toBe(worth);
      expect(existsSync(join(site, `${path}.gz`)), path).toBe(worth);
    }
  });
});

describe('the render plan', () => {
  const GiB = 2 ** 30;
  it.each([
    // listings, cores, memory in GiB, --render-workers → workers, shares
    [9_999, 8, 64, undefined, 1, 1],
    [30_950, 2, 8, undefined, 1, 1],
    [30_950, 2, 16, undefined, 2, 2],
    [100_000, 16, 128, undefined, 10, 10],
    [1_000_000, 2, 16, undefined, 2, 20],
    [1_000_000, 16, 128, undefined, 16, 20],
    [1_000_000, 16, 16, undefined, 3, 20],
    [1_000_000, 16, 128, 4, 4, 20],
    [1_000_000, 2, 1, undefined, 1, 20],
  ] as const)(
    '%i listings, %i cores, %i GiB, --render-workers %s: %i at once over %i shares',
    (listings, cores, memoryGiB, workers, expectedWorkers, expectedShares) => {
      expect(renderPlan(listings, { cores, memoryBytes: memoryGiB * GiB, workers })).toEqual({ workers: expectedWorkers, shares: expectedShares });
    },
  );

  it('plans one renderer for an incremental build of few changed listings, at any catalog size', () => {
    const machine = { cores: 2, memoryBytes: 16 * GiB };
    expect(renderPlan(30_950, { ...machine, changed: 300 })).toEqual({ workers: 1, shares: 1 });
    expect(renderPlan(30_950, { ...machine, changed: 20_000 })).toEqual({ workers: 2, shares: 2 });
    // --render-workers wins. A renderer holds whole only the listings of the pages it renders, so one share does at 1M.
    expect(renderPlan(30_950, { ...machine, changed: 300, workers: 2 })).toEqual({ workers: 2, shares: 2 });
    expect(renderPlan(100_000, { ...machine, changed: 1_000 })).toEqual({ workers: 1, shares: 1 });
    expect(renderPlan(1_000_000, { ...machine, changed: 9_000 })).toEqual({ workers: 1, shares: 1 });
    // A full build of that size is shared out; an incremental one by its changed listings, at least one share a renderer.
    expect(renderPlan(1_000_000, machine).shares).toBe(20);
    expect(renderPlan(1_000_000, { ...machine, changed: 10_000 })).toEqual({ workers: 2, shares: 2 });
    expect(renderPlan(1_000_000, { ...machine, changed: 200_000 })).toEqual({ workers: 2, shares: 4 });
    expect(renderPlan(1_000_000, { ...machine, changed: 1_000_000 })).toEqual({ workers: 2, shares: 20 });
  });

  it('never plans more renderers than half the memory holds, nor a share of more than LISTINGS_PER_SHARE listings', () => {
    for (const memoryBytes of [4 * GiB, 16 * GiB, 128 * GiB]) {
      const plan = renderPlan(1_000_000, { cores: 64, memoryBytes });
      expect(plan.workers * RENDERER_MEMORY_BYTES).toBeLessThanOrEqual(Math.max(RENDERER_MEMORY_BYTES, memoryBytes / 2));
      expect(1_000_000 / plan.shares).toBeLessThanOrEqual(LISTINGS_PER_SHARE);
    }
  });
});

describe('every sitemap URL is a page', () => {
  const parser = new XMLParser({ isArray: (name) => name === 'url' || name === 'sitemap' });
  const urls: string[] = [];

  beforeAll(async () => {
    const index = parser.parse(await (await server.fetch('/sitemap.xml')).text()) as { sitemapindex: { sitemap: Array<{ loc: string }> } };
    for (const { loc } of index.sitemapindex.sitemap) {
      const shard = parser.parse(await (await server.fetch(loc.slice(TEST_BASE_URL.length))).text()) as { urlset: { url: Array<{ loc: string }> } };
      urls.push(...shard.urlset.url.map((url) => url.loc.slice(TEST_BASE_URL.length)));
    }
  });

  it('lists every listing page and the other pages', () => {
    expect(urls.filter((path) => path.startsWith('/listings/'))).toHaveLength(catalog.count);
    expect(urls.filter((path) => path.startsWith('/owners/'))).toHaveLength(
      [...catalog.ownerListings.values()].filter((n) => n >= OWNER_PAGE_MIN_LISTINGS).length,
    );
    expect(urls).toContain(SITE_PATHS.owner('vercel-labs'));
    expect(urls).toEqual(expect.arrayContaining([SITE_PATHS.home, SITE_PATHS.browse, SITE_PATHS.mcpHub, SITE_PATHS.docsIndex]));
  });

  it(`answers 200 HTML with the right h1 and the disclaimer for every non-listing page and ${LISTING_SAMPLE} listing pages across shards`, async () => {
    const spread = (paths: string[], n: number) =>
      Array.from({ length: Math.min(n, paths.length) }, (_, i) => paths[Math.floor((i * paths.length) / Math.min(n, paths.length))]!);
    const listings = urls.filter((path) => path.startsWith('/listings/'));
    const owners = urls.filter((path) => path.startsWith('/owners/'));
    const sample = [
      ...urls.filter((path) => !path.startsWith('/listings/') && !path.startsWith('/owners/')),
      ...spread(listings, LISTING_SAMPLE),
      ...spread(owners, 100),
    ];
    const failures: string[] = [];
    for (let i = 0; i < sample.length; i += 16) {
      await Promise.all(
        sample.slice(i, i + 16).map(async (path) => {
          const { status, type, html } = await page(path);
          const h1 = headingsOf(html);
          const expected = expectedH1(catalog, path);
          if (status !== 200 || !type.startsWith('text/html') || h1.length !== 1 || h1[0] !== expected || !textOf(html).includes(DISCLAIMER))
            failures.push(`${path}: ${status} ${type} h1=${JSON.stringify(h1)} expected ${JSON.stringify(expected)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
    expect(sample.length).toBeGreaterThan(LISTING_SAMPLE + 100);
  });
});

describe('links resolve', () => {
  it('every internal link of the home, a type, a category, a listing and an owner page answers 200', async () => {
    const category = catalog.categories.find((c) => c.count > 5)!;
    const pages = [
      SITE_PATHS.home,
      SITE_PATHS.type('skill'),
      SITE_PATHS.category(category.type, category.name),
      SITE_PATHS.listing('find-skills'),
      SITE_PATHS.owner('vercel-labs'),
    ];
    const links = new Set<string>();
    for (const path of pages) {
      const { status, html } = await page(path);
      expect(status, path).toBe(200);
      for (const [, href] of html.matchAll(/href="(\/[^"#]*)"/g)) links.add(decodeEntities(href!));
    }
    expect(links.size).toBeGreaterThan(50);
    const broken: string[] = [];
    const all = [...links];
    for (let i = 0; i < all.length; i += 16) {
      await Promise.all(
        all.slice(i, i + 16).map(async (href) => {
          const res = await server.fetch(href, { headers: HTML });
          await res.arrayBuffer();
          if (res.status !== 200) broken.push(`${href}: ${res.status}`);
        }),
      );
    }
    expect(broken).toEqual([]);
  });
});

describe('pages agree with the API', () => {
  it('an owner page shows the figures of GET /api/v1/owners/{owner}/stats and its first listings of each type, linked from each', async () => {
    let capped = 0;
    for (const owner of ['vercel-labs', 'anthropics']) {
      const stats = await json<{
        owner: string;
        total: number;
        byType: Record<string, { count: number; installs: number; realInstalls: number; stars: number; rank: number; owners: number }>;
      }>(await server.fetch(`/api/v1/owners/${owner}/stats`));
      const { status, html } = await page(SITE_PATHS.owner(owner));
      expect(status).toBe(200);
      expect(headingsOf(html)).toEqual([stats.owner]);
      const text = textOf(html);
      // The ranks among owners are not in the page (they move daily for every owner): its script reads them from
      // their shared part, which holds the API's.
      const part = await json<RankPart>(await server.fetch(SITE_PATHS.ranks(rankPart(owner))));
      for (const [type, figures] of Object.entries(stats.byType)) {
        // Installs are the real ones only, with how many listings they cover.
        const installs =
          figures.realInstalls > 0 ? `${figures.installs.toLocaleString('en-US')} (${figures.realInstalls.toLocaleString('en-US')} listed)` : 'none measured';
        expect(text).toContain(`${figures.count.toLocaleString('en-US')} ${installs} ${figures.stars.toLocaleString('en-US')} by `);
        expect(html).toContain(`data-ranks="${SITE_PATHS.ranks(rankPart(owner))}" data-owner="${owner}" data-type="${type}"`);
        expect(part.owners[owner]?.[type as ListingType]).toEqual([figures.rank, figures.owners]);
      }
      // Of each type, the owner's first OWNER_PAGE_LISTINGS_PER_TYPE by the type's metric in the API's order, and only
      // the owner's (the API's owner filter also matches authors); the rest behind a link to /browse by owner and type.
      const onPage = listedSlugs(html);
      const shown: string[] = [];
      const links = decodeEntities(html);
      for (const type of LISTING_TYPES.filter((t) => stats.byType[t])) {
        const metric = RANKING_METRIC[type];
        const { items } = await json<{ items: Listing[] }>(await server.fetch(`/api/v1/listings?owner=${owner}&type=${type}&sort=${metric}&limit=2000`));
        const own = items.filter((item) => item.repo.split('/')[0]!.toLowerCase() === owner);
        expect(own).toHaveLength(stats.byType[type]!.count);
        shown.push(...own.slice(0, OWNER_PAGE_LISTINGS_PER_TYPE).map((item) => item.slug));
        const rest = browseHref(SITE_PATHS.browse, { owner: stats.owner, type, sort: metric });
        expect(links.includes(`href="${rest}"`), `${owner} ${type}`).toBe(own.length > OWNER_PAGE_LISTINGS_PER_TYPE);
        if (own.length > OWNER_PAGE_LISTINGS_PER_TYPE) {
          capped++;
          expect(text).toContain(`The first ${OWNER_PAGE_LISTINGS_PER_TYPE} of ${own.length.toLocaleString('en-US')}.`);
          // The rest: /browse filtered by owner and type, every result the owner's (by repository or as author).
          const browse = await page(rest);
          expect(browse.status).toBe(200);
          expect(decodeEntities(browse.html)).toContain(`name="owner" value="${stats.owner}"`);
          const results = listedSlugs(browse.html);
          expect(results.length).toBe(BROWSE_PAGE_SIZE);
          for (const slug of results) {
            const listing = await json<Listing>(await server.fetch(`/api/v1/listings/${slug}`));
            expect([listing.repo.split('/')[0]!.toLowerCase(), listing.author.toLowerCase()]).toContain(owner);
            expect(listing.type).toBe(type);
          }
        }
      }
      expect(onPage).toEqual(shown);
      // Each listing page links back to its owner.
      expect((await page(SITE_PATHS.listing(onPage[0]!))).html).toContain(`href="${SITE_PATHS.owner(owner)}"`);
    }
    // anthropics has more plugins and skills than a page shows.
    expect(capped).toBeGreaterThanOrEqual(2);
    // An owner of a single listing has no page (it would repeat the listing's); its figures stay in the API.
    const single = [...catalog.ownerListings].find(([, n]) => n === 1)![0];
    expect((await page(SITE_PATHS.owner(single))).status).toBe(404);
    const stats = await json<{ total: number }>(await server.fetch(`/api/v1/owners/${single}/stats`));
    expect(stats.total).toBe(1);
  });

  const apiSlugs = async (query: string): Promise<string[]> =>
    (await json<{ items: Listing[] }>(await server.fetch(`/api/v1/listings?${query}`))).items.map((item) => item.slug);

  it('a category page ranks its listings as GET /api/v1/listings?type=&category=&sort=<metric> does', async () => {
    const categories = catalog.categories.filter((c) => c.count > 1).slice(0, 12);
    expect(categories.length).toBeGreaterThan(5);
    for (const category of categories) {
      const onPage = listedSlugs((await page(SITE_PATHS.category(category.type, category.name))).html);
      expect(onPage.length).toBe(Math.min(category.count, 100));
      const fromApi = await apiSlugs(`type=${category.type}&category=${category.name}&sort=${RANKING_METRIC[category.type]}&limit=${onPage.length}`);
      expect(onPage, `${category.type}/${category.name}`).toEqual(fromApi);
    }
  });

  it('a comparison page exists exactly where shortlists.ts says, and shows the top listings of the API, two per repository', async () => {
    for (const category of catalog.categories.slice(0, 40)) {
      const { status, html } = await page(SITE_PATHS.compare(category.type, category.name));
      expect(status, `${category.type}/${category.name}`).toBe(hasShortlist(category) ? 200 : 404);
      if (!hasShortlist(category)) continue;
      const rows = [...html.matchAll(/<th scope="row"><a href="\/listings\/([^/]+)\/">/g)].map((m) => m[1]);
      const { items } = await json<{ items: Listing[] }>(
        await server.fetch(`/api/v1/listings?type=${category.type}&category=${category.name}&sort=${RANKING_METRIC[category.type]}&limit=200`),
      );
      expect(rows).toEqual(
        twoPerRepository(items.filter((item) => !item.archived))
          .slice(0, SHORTLIST.size)
          .map((item) => item.slug),
      );
    }
  });

  it("the site's top lists (/, /mcp, /types/mcp/) show at most two listings of one repository and link to the rest", async () => {
    const { items } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&sort=stars&limit=200'));
    const expected = twoPerRepository(items.filter((item) => !item.archived));
    for (const path of [SITE_PATHS.home, SITE_PATHS.mcpHub, SITE_PATHS.type('mcp')]) {
      const { html } = await page(path);
      // Each top list on its own: the home page has one per type.
      for (const section of html.split('<section').filter((part) => /aria-labelledby="top-/.test(part))) {
        const repos = new Map<string, number>();
        for (const slug of listedSlugs(section)) {
          const repo = (await json<Listing>(await server.fetch(`/api/v1/listings/${slug}`))).repo;
          repos.set(repo, (repos.get(repo) ?? 0) + 1);
        }
        expect(repos.size, path).toBeGreaterThan(0);
        expect(Math.max(...repos.values()), path).toBeLessThanOrEqual(2);
      }
    }
    const hub = listedSlugs((await page(SITE_PATHS.type('mcp'))).html);
    expect(hub).toEqual(expected.slice(0, hub.length).map((item) => item.slug));
    // modelcontextprotocol/servers has more than two MCP servers among the most starred: the rest are one link away.
    expect(textOf((await page(SITE_PATHS.type('mcp'))).html)).toMatch(/\d+ more from modelcontextprotocol\/servers/);
  });

  it('a moved listing is marked in the API and on its page, and leads no top list', async () => {
    const moved = await json<Listing>(await server.fetch('/api/v1/listings/postgresql-mcp'));
    expect(moved.archived).toBe('moved to modelcontextprotocol/servers-archived');
    expect(textOf((await page(SITE_PATHS.listing('postgresql-mcp'))).html)).toContain('Archived: moved to modelcontextprotocol/servers-archived.');
    for (const path of [SITE_PATHS.home, SITE_PATHS.mcpHub, SITE_PATHS.type('mcp')]) {
      for (const slug of listedSlugs((await page(path)).html))
        expect((await json<Listing>(await server.fetch(`/api/v1/listings/${slug}`))).archived, `${path} ${slug}`).toBeUndefined();
    }
  });

  it('a listing that shares its repository says whose stars it shows and how many listings share them', async () => {
    const { items } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&sort=stars&limit=20'));
    const shared = items.find((item) => item.repo === 'modelcontextprotocol/servers')!;
    const { items: all } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?owner=modelcontextprotocol&limit=2000'));
    const sharing = all.filter((item) => item.repo === shared.repo).length;
    expect(sharing).toBeGreaterThan(2);
    expect(textOf((await page(SITE_PATHS.listing(shared.slug))).html)).toContain(`of ${shared.repo}, shared by ${sharing} listings`);
  });

  it('a listing page labels each figure real or synthetic as its JSON says, and links to that JSON', async () => {
    // Real figures rank first, so the mixed and the synthetic listings are found further down the orders.
    const byStars = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?limit=200&sort=stars&type=mcp'));
    const tail = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?limit=200&offset=20000'));
    const mixed = byStars.items.filter((l) => l.metrics.installs !== l.metrics.stars).slice(0, 5);
    const synthetic = tail.items.filter((l) => l.metrics.installs === 'synthetic').slice(0, 5);
    expect(mixed.length + synthetic.length).toBeGreaterThan(3);
    for (const listing of [...mixed, ...synthetic]) {
      const text = textOf((await page(SITE_PATHS.listing(listing.slug))).html);
      for (const metric of ['installs', 'stars'] as const) {
        const f = figure(listing, metric);
        expect(text).toContain(`${f.text} (${f.provenance})`);
        if (!f.real) expect(f.text.startsWith('≈ ')).toBe(true);
      }
      const { html } = await page(SITE_PATHS.listing(listing.slug));
      const href = decodeEntities(/<dt>JSON<\/dt><dd><a href="([^"]+)"/.exec(html)?.[1] ?? '');
      expect(href).toBe(`/api/v1/listings/${listing.slug}`);
      expect((await json<Listing>(await server.fetch(href))).id).toBe(listing.id);
    }
  });

  it('a listing page gives its trending figure with its unit, and only from a measured or interpolated history', async () => {
    const { items } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=skill&sort=trending&limit=50'));
    const measured = items.find((l) => l.metrics.history !== 'synthetic')!;
    expect(textOf((await page(SITE_PATHS.listing(measured.slug))).html)).toMatch(
      new RegExp(
        `Trending ${measured.trending.toFixed(2).replace('.', '\\.')} \\(z-score: standard deviations of install growth in the last 7 days above its earlier pace; history ${measured.metrics.history}\\)`,
      ),
    );
  });

  it("a listing page has its canonical URL, JSON-LD SoftwareApplication and the listing's own url", async () => {
    const listing = await json<Listing>(await server.fetch('/api/v1/listings/vercel-react-best-practices'));
    const { html } = await page(SITE_PATHS.listing(listing.slug));
    expect(html).toContain(`<link rel="canonical" href="${listing.url}">`);
    const ld = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]!) as Record<string, unknown>;
    expect(ld).toMatchObject({ '@context': 'https://schema.org', '@type': 'SoftwareApplication', name: listing.name, url: listing.url });
  });
});

describe('/browse', () => {
  it('renders the results of ?q= on the server, the same as the API, with a working next page', async () => {
    const first = await page('/browse?q=postgres');
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/html/);
    const slugs = listedSlugs(first.html);
    expect(slugs).toHaveLength(BROWSE_PAGE_SIZE);
    const api = await json<{ items: Listing[]; cursor: string }>(await server.fetch(`/api/v1/listings?q=postgres&limit=${BROWSE_PAGE_SIZE}&distinct=true`));
    expect(slugs).toEqual(api.items.map((item) => item.slug));
    const next = decodeEntities(/<a href="([^"]+)" rel="next">/.exec(first.html)![1]!);
    expect(next).toBe(`/browse?q=postgres&cursor=${api.cursor}`);
    const second = await page(next);
    expect(second.status).toBe(200);
    expect(textOf(second.html)).toContain(`Showing ${BROWSE_PAGE_SIZE + 1}–`);
    expect(listedSlugs(second.html)[0]).not.toBe(slugs[0]);
  });

  it('shows the total, goes back with Previous, and honours offset= as the API does (folded, as distinct=true)', async () => {
    const api = await json<{ items: Listing[]; total: number }>(
      await server.fetch(`/api/v1/listings?q=postgres&limit=${BROWSE_PAGE_SIZE}&offset=${2 * BROWSE_PAGE_SIZE}&distinct=true`),
    );
    const third = await page(`/browse?q=postgres&offset=${2 * BROWSE_PAGE_SIZE}`);
    expect(third.status).toBe(200);
    expect(listedSlugs(third.html)).toEqual(api.items.map((item) => item.slug));
    expect(textOf(third.html)).toContain(`Showing ${2 * BROWSE_PAGE_SIZE + 1}–${3 * BROWSE_PAGE_SIZE} of ${api.total.toLocaleString('en-US')}`);
    const previous = decodeEntities(/<a href="([^"]+)" rel="prev">Previous/.exec(third.html)![1]!);
    const second = await page(previous);
    expect(textOf(second.html)).toContain(`Showing ${BROWSE_PAGE_SIZE + 1}–${2 * BROWSE_PAGE_SIZE} of`);
    const back = decodeEntities(/<a href="([^"]+)" rel="prev">Previous/.exec(second.html)![1]!);
    expect(back).toBe('/browse?q=postgres');
    expect((await page('/browse?q=postgres')).html).not.toContain('rel="prev"');
  });

  it('says when it searched a corrected query, and shows what the API shows for it', async () => {
    const { status, html } = await page('/browse?q=kubrenetes');
    expect(status).toBe(200);
    expect(/<h2 id="results-heading">([^<]*)<\/h2>/.exec(html)?.[1]).toBe('Results for “kubernetes”');
    expect(textOf(html)).toContain('Showing matches for “kubernetes”: no listing holds every word of “kubrenetes”. Showing 1–');
    const api = await server.fetch(`/api/v1/listings?q=kubrenetes&limit=${BROWSE_PAGE_SIZE}&distinct=true`);
    expect(api.headers.get('Search-Corrected')).toBe('kubernetes');
    expect(listedSlugs(html)).toEqual((await json<{ items: Listing[] }>(api)).items.map((item) => item.slug));
    expect(textOf((await page('/browse?q=kubernetes')).html)).not.toContain('Showing matches for');
  });

  it('keeps the filters in the form and narrows the results', async () => {
    const { html } = await page('/browse?q=postgres&type=mcp&sort=stars');
    expect(html).toMatch(/<option value="mcp" selected>/);
    expect(html).toMatch(/<option value="stars" selected>/);
    expect(html).toContain('value="postgres"');
    expect([...html.matchAll(/<span class="badge">([^<]+)<\/span>/g)].map((m) => m[1])).toEqual(Array(BROWSE_PAGE_SIZE).fill('MCP server'));
  });

  it('still renders after the shim switches builds (the server bundle of the new build is imported)', async () => {
    server.app.reload(buildDir);
    const { status, html } = await page('/browse?q=pdf');
    expect(status).toBe(200);
    expect(listedSlugs(html).length).toBeGreaterThan(0);
  });

  it.each([
    ['type=bogus', "Parameter 'type' must be one of"],
    ['sort=newest', "Parameter 'sort' must be one of"],
    ['q=a&q=b', "Parameter 'q' must be given at most once"],
    ['cursor=not-a-token', "Parameter 'cursor' is not a token this service issued"],
    [`q=${'x'.repeat(129)}`, "Parameter 'q' must be at most 128 characters"],
  ])('shows an invalid %s on the page with status 400', async (query, message) => {
    const { status, type, html } = await page(`/browse?${query}`);
    expect(status).toBe(400);
    expect(type).toMatch(/^text\/html/);
    expect(textOf(html)).toContain(message);
    expect(headingsOf(html)).toEqual(['Browse the catalog']);
  });
});

describe('not found, robots.txt and compression', () => {
  it('answers a browser with the 404 page and an API client with the JSON error', async () => {
    const browser = await page('/listings/no-such-listing-anywhere/');
    expect(browser.status).toBe(404);
    expect(browser.type).toMatch(/^text\/html/);
    expect(headingsOf(browser.html)).toEqual(['Page not found']);
    const client = await server.fetch('/listings/no-such-listing-anywhere/');
    expect(client.status).toBe(404);
    expect(await json(client)).toMatchObject({ code: 'not_found' });
  });

  it('serves robots.txt naming the sitemap index', async () => {
    const text = await (await server.fetch('/robots.txt')).text();
    expect(text).toContain(`Sitemap: ${TEST_BASE_URL}/sitemap.xml`);
  });

  it('serves large pages and the stylesheet brotli-compressed, and small pages as they are', async () => {
    const large = await page(SITE_PATHS.listing('vercel-react-best-practices'), { headers: { 'Accept-Encoding': 'br, gzip' } });
    expect(large.res.headers.get('content-encoding')).toBe('br');
    expect(large.html.length).toBeGreaterThan(PAGE_COMPRESS_MIN_BYTES);
    const css = /<link rel="stylesheet" href="(\/_astro\/[^"]+\.css)">/.exec(large.html)![1]!;
    const style = await server.fetch(css, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(style.headers.get('content-encoding')).toBe('gzip');
    expect(style.headers.get('cache-control')).toContain('immutable');
    const small = [...catalog.listings.keys()].at(-1)!;
    const plain = await page(SITE_PATHS.listing(small), { headers: { 'Accept-Encoding': 'br, gzip' } });
    expect(plain.status).toBe(200);
    expect(plain.html.length).toBeLessThan(PAGE_COMPRESS_MIN_BYTES);
    expect(plain.res.headers.get('content-encoding')).toBeNull();
  });
});
