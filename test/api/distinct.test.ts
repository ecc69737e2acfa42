// Guarantees the folded results: distinct=true shows one listing per copy group with total, offsets and cursors
// counted over the folded list (every page walked gives each group once, total of them); without it the API answers
// as SERVICE.md says; and the first page of /browse and of MCP search_catalog, A2A and /ask for 20 common tasks
// never shows a copy group twice. Over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListingPageSchema, type Listing } from '../../src/domain/schemas.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const COMMON_TASKS = [
  'pdf',
  'pptx',
  'skill creator',
  'git commit',
  'frontend design',
  'webapp testing',
  'mcp builder',
  'docx',
  'excel spreadsheet',
  'canvas design',
  'test driven development',
  'code review',
  'brainstorming',
  'react best practices',
  'deploy to vercel',
  'theme factory',
  'internal comms',
  'systematic debugging',
  'writing plans',
  'browser automation',
];

const groupOf = (listing: Pick<Listing, 'id' | 'copyOf'>) => listing.copyOf ?? listing.id;

async function page(query: string) {
  const res = await server.fetch(`/api/v1/listings?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ListingPageSchema.parse(await json(res));
}

/** Every listing of a search, page by page through the cursors. */
async function walk(query: string, limit: number): Promise<{ items: Listing[]; totals: Set<number> }> {
  const items: Listing[] = [];
  const totals = new Set<number>();
  let cursor: string | null = null;
  do {
    const body = await page(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...body.items);
    totals.add(body.total);
    cursor = body.cursor;
  } while (cursor);
  return { items, totals };
}

describe('distinct=true on the listing search', () => {
  it('folds each copy group to its best-ranked member, where the default shows them all', async () => {
    const plain = await page('q=pdf&limit=50');
    const folded = await page('q=pdf&limit=50&distinct=true');
    expect(new Set(plain.items.map(groupOf)).size).toBeLessThan(plain.items.length);
    expect(new Set(folded.items.map(groupOf)).size).toBe(folded.items.length);
    // The best-ranked member of each group, in the order of the unfolded ranking.
    const firsts = plain.items.filter((item, i) => plain.items.findIndex((other) => groupOf(other) === groupOf(item)) === i);
    expect(folded.items.map((item) => item.id).slice(0, 10)).toEqual(firsts.map((item) => item.id).slice(0, 10));
    expect(folded.total).toBeLessThan(plain.total);
  });

  it.each([
    ['q=skill creator', 7],
    ['type=skill&owner=anthropics', 5],
    ['q=automation&type=skill&sort=stars', 50],
  ])('walks %s through its cursors: each group once, as many as total says', async (query, limit) => {
    const { items, totals } = await walk(`${query}&distinct=true`, limit);
    expect(totals.size).toBe(1);
    expect(items.length).toBe([...totals][0]);
    expect(new Set(items.map(groupOf)).size).toBe(items.length);
    const all = await walk(query, 100);
    expect(new Set(items.map(groupOf))).toEqual(new Set(all.items.map(groupOf)));
  });

  it('keeps offset paging consistent with cursor paging', async () => {
    const first = await page('q=design&distinct=true&limit=10');
    const second = await page('q=design&distinct=true&limit=10&offset=10');
    const both = await page('q=design&distinct=true&limit=20');
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(both.items.map((item) => item.id));
  });

  it.each(['yes', '1', 'TRUE '])('refuses distinct=%s with a 400 in the documented shape', async (value) => {
    const res = await server.fetch(`/api/v1/listings?distinct=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('distinct') });
  });

  it('refuses a cursor of the unfolded search on the folded one', async () => {
    const plain = await page('q=pdf&limit=5');
    const res = await server.fetch(`/api/v1/listings?q=pdf&limit=5&distinct=true&cursor=${plain.cursor}`);
    expect(res.status).toBe(400);
  });
});

describe('the first page for 20 common tasks shows no copy group twice', () => {
  /** id → group, for listings named by slug on a page. */
  async function groupsOfSlugs(slugs: string[]): Promise<string[]> {
    const res = await server.fetch('/api/v1/listings/batch', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids: slugs }),
    });
    const { items } = await json<{ items: Listing[] }>(res);
    return items.map(groupOf);
  }

  it.each(COMMON_TASKS)('/browse?q=%s', async (task) => {
    const res = await server.fetch(`/browse?q=${encodeURIComponent(task)}`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    const slugs = [...(await res.text()).matchAll(/<a class="title" href="\/listings\/([^/]+)\/">/g)].map((m) => m[1]!);
    expect(slugs.length).toBeGreaterThan(0);
    const groups = await groupsOfSlugs(slugs);
    expect(groups).toHaveLength(slugs.length);
    expect(new Set(groups).size).toBe(groups.length);
  });

  it('/browse says how many copies stand behind an origin it shows', async () => {
    const html = await (await server.fetch('/browse?q=webapp%20testing', { headers: { Accept: 'text/html' } })).text();
    const origin = await json<Listing>(await server.fetch('/api/v1/listings/webapp-testing'));
    expect(origin.copies).toBeGreaterThan(1);
    expect(html).toContain(`${origin.copies} copies elsewhere`);
  });

  async function mcpTool(name: string, args: Record<string, unknown>): Promise<Listing[]> {
    const res = await server.fetch('/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const reply = await json<{ result: { structuredContent: { listings?: Listing[]; items?: Listing[] } } }>(res);
    const content = reply.result.structuredContent;
    return (content.listings ?? content.items)!;
  }

  it.each(COMMON_TASKS)('MCP search_catalog %s', async (task) => {
    const listings = await mcpTool('search_catalog', { query: task, limit: 10 });
    expect(listings.length).toBeGreaterThan(0);
    expect(new Set(listings.map(groupOf)).size).toBe(listings.length);
  });

  it('MCP top_catalog of skills', async () => {
    const listings = await mcpTool('top_catalog', { type: 'skill', limit: 50 });
    expect(listings).toHaveLength(50);
    expect(new Set(listings.map(groupOf)).size).toBe(50);
  });

  it('/ask for a common task', async () => {
    const res = await server.fetch('/ask', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ query: 'skill creator', limit: 20 }),
    });
    const body = await json<{ itemListElement: { item: Listing }[] }>(res);
    const groups = body.itemListElement.map((element) => groupOf(element.item));
    expect(groups.length).toBeGreaterThan(0);
    expect(new Set(groups).size).toBe(groups.length);
  });
});
