// Guarantees every URL on this origin that the discovery files mention (llms.txt, llms-full.txt, the sitemap, the
// well-known documents, the feed and the Markdown files) is real: API paths and discovery files answer 200, POST-only
// endpoints take a POST, and page URLs are SITE_PATHS URLs.
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { classify, urlsInJson, urlsInText } from './discovery-http.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const TEXT_FILES = ['/llms.txt', '/llms-full.txt', '/skills/catalog/SKILL.md', '/pricing.md', '/auth.md'];
const JSON_FILES = [
  '/.well-known/api-catalog',
  '/.well-known/ai-catalog.json',
  '/feeds/listings.json',
  // The agent-surface documents are another module's, but their links are discovery links all the same.
  '/.well-known/agent-card.json',
  '/.well-known/mcp/server-card.json',
  '/.well-known/mcp',
  '/.well-known/mcp/docs',
  '/mcp.json',
];

async function mentioned(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const add = (urls: string[], source: string) => urls.forEach((url) => found.has(url) || found.set(url, source));
  for (const path of TEXT_FILES) add(urlsInText(await (await server.fetch(path)).text()), path);
  for (const path of JSON_FILES) add(urlsInJson(await (await server.fetch(path)).json()), path);
  const parser = new XMLParser({ isArray: (name) => name === 'url' || name === 'sitemap' });
  const index = parser.parse(await (await server.fetch('/sitemap.xml')).text()) as { sitemapindex: { sitemap: Array<{ loc: string }> } };
  for (const { loc } of index.sitemapindex.sitemap) {
    add([loc], '/sitemap.xml');
    const shard = parser.parse(await (await server.fetch(loc.slice(TEST_BASE_URL.length))).text()) as { urlset: { url: Array<{ loc: string }> } };
    add(
      shard.urlset.url.map((u) => u.loc),
      loc,
    );
  }
  return found;
}

/** GET that reads only the status: a stream (the SSE handshake) is cancelled instead of read to its end. */
async function statusOf(path: string): Promise<{ status: number }> {
  const res = await server.fetch(path);
  await res.body?.cancel();
  return { status: res.status };
}

describe('URLs in the discovery files', () => {
  let urls: Map<string, string>;
  const byKind = (kind: string) => [...urls].filter(([url]) => classify(url).kind === kind);
  beforeAll(async () => {
    urls = await mentioned();
  });

  it('API paths and discovery files answer GET with 200', async () => {
    const targets = byKind('get');
    expect(targets.length).toBeGreaterThan(25);
    const failures: string[] = [];
    for (let i = 0; i < targets.length; i += 8) {
      await Promise.all(
        targets.slice(i, i + 8).map(async ([url, source]) => {
          const { status } = await statusOf(classify(url).path);
          if (status !== 200) failures.push(`${url} (from ${source}): ${status}`);
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  it('endpoints with no GET take a POST: an empty JSON body reaches the handler (neither 404 nor 405)', async () => {
    const targets = byKind('post-only');
    expect(targets.map(([url]) => classify(url).path)).toEqual(expect.arrayContaining(['/a2a/v1', '/api/v1/listings/batch']));
    for (const [url, source] of targets) {
      const res = await server.fetch(classify(url).path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      await res.body?.cancel();
      expect([404, 405], `${url} (from ${source}): ${res.status}`).not.toContain(res.status);
    }
  });

  it('/ask named without a question answers once asked one', async () => {
    const targets = byKind('needs-query');
    expect(targets.length).toBeGreaterThan(0);
    for (const [url] of targets) expect((await statusOf(`${classify(url).path}?q=postgres`)).status, url).toBe(200);
  });

  it('URI templates in prose resolve once filled in', async () => {
    const targets = byKind('template');
    expect(targets.length).toBeGreaterThan(0);
    const { items } = (await (await server.fetch('/api/v1/listings?limit=1')).json()) as { items: Array<{ slug: string }> };
    for (const [url, source] of targets) {
      const path = classify(url).path.replace(/\{(slug|id)\}/g, items[0]!.slug);
      expect((await statusOf(path)).status, `${url} (from ${source})`).toBe(200);
    }
  });

  it('page URLs are SITE_PATHS pages, every listing page among them', async () => {
    const pages = byKind('page');
    const stats = (await (await server.fetch('/api/v1/catalog/stats')).json()) as { total: number };
    expect(pages.filter(([url]) => url.startsWith(`${TEST_BASE_URL}/listings/`)).length).toBe(stats.total);
    // Nothing mentioned falls outside the four kinds: what is not a page, a template or a POST-only endpoint is fetched.
    const kinds = ['page', 'get', 'post-only', 'needs-query', 'template'];
    expect(kinds.reduce((n, kind) => n + byKind(kind).length, 0)).toBe(urls.size);
  });
});
