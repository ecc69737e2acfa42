// Guarantees `semantic` over real HTTP: hybrid ranking once the model is loaded, every filter respected
// exactly as the keyword engine applies it, offset and cursor walks without repeats or gaps, an explicit
// sort re-ordering the same candidates, `q` restricting while `semantic` ranks, and the agent surfaces
// (/ask, MCP search_catalog) answering through the same search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMANTIC_CANDIDATES } from '../../src/search/ranking/fusion.ts';
import { compareBy, type RankedFields } from '../../src/domain/listing/ranking.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

interface Item extends RankedFields {
  type: string;
}
interface Page {
  items: Item[];
  hasMore: boolean;
  next: string | null;
}

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
  expect(await server.app.semantic.settled).toBe('ready');
});
afterAll(() => server.close());

const TEXT = 'something to let my agent query a database';
/** A date some of the snapshot's listings were updated after and some before. */
const SINCE = '2026-01-01T00:00:00Z';
const enc = encodeURIComponent;

async function page(query: string, mode: string | null = 'hybrid'): Promise<Page> {
  const res = await server.fetch(`/api/v1/listings?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  if (mode !== null) expect(res.headers.get('search-mode')).toBe(mode);
  return json<Page>(res);
}

/** Every listing a (keyword or browse) search returns, by walking its pages. */
async function everything(query: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 2000) {
    const body = await page(`${query}&limit=2000&offset=${offset}`, null);
    for (const item of body.items) ids.add(item.id);
    if (!body.hasMore) return ids;
  }
}

describe('filters', () => {
  it.each([
    ['type=mcp'],
    ['types=skill,plugin'],
    ['type=workflow'],
    ['category=databases'],
    ['owner=anthropics'],
    ['type=mcp&category=databases'],
    ['types=plugin,marketplace&owner=ANTHROPICS'],
    [`updatedSince=${enc(SINCE)}`],
    [`type=mcp&updatedSince=${enc(SINCE)}`],
  ])('with %s, every result is a listing the filter admits (the keyword engine’s own filter)', async (filter) => {
    const admitted = await everything(filter);
    const body = await page(`semantic=${enc(TEXT)}&${filter}&limit=2000`);
    expect(body.items.length).toBeGreaterThan(0);
    for (const item of body.items) expect(admitted.has(item.id), item.id).toBe(true);
  });

  it('answers an impossible filter with no results', async () => {
    const body = await page(`semantic=${enc(TEXT)}&category=databases&owner=no-such-owner-anywhere`);
    expect(body.items).toEqual([]);
    expect(body.hasMore).toBe(false);
  });
});

describe('paging', () => {
  it('an offset walk visits each candidate once, in the order of a single page', async () => {
    const all = (await page(`semantic=${enc(TEXT)}&limit=2000`)).items.map((item) => item.id);
    expect(all.length).toBeGreaterThan(SEMANTIC_CANDIDATES / 2);
    expect(all.length).toBeLessThanOrEqual(2 * SEMANTIC_CANDIDATES);
    const walked: string[] = [];
    for (let offset = 0; ; offset += 37) {
      const body = await page(`semantic=${enc(TEXT)}&limit=37&offset=${offset}`);
      walked.push(...body.items.map((item) => item.id));
      if (!body.hasMore) break;
    }
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(all);
  });

  it('the next links walk the same results', async () => {
    const all = (await page(`semantic=${enc(TEXT)}&type=mcp&limit=2000`)).items.map((item) => item.id);
    const walked: string[] = [];
    let body = await page(`semantic=${enc(TEXT)}&type=mcp&limit=50`);
    walked.push(...body.items.map((item) => item.id));
    while (body.next) {
      const url = new URL(body.next);
      body = await page(url.search.slice(1));
      walked.push(...body.items.map((item) => item.id));
    }
    expect(walked).toEqual(all);
  });
});

describe('sort', () => {
  it.each([
    ['installs', 'real installs, then real stars, then id'],
    ['stars', 'real stars, then real installs, then id'],
    ['trending', 'measured histories by trending, then modelled ones by id'],
  ] as const)('sort=%s orders the same candidates as the ranking module does (%s)', async (sort, _rule) => {
    const relevance = (await page(`semantic=${enc(TEXT)}&limit=2000`)).items;
    const sorted = (await page(`semantic=${enc(TEXT)}&sort=${sort}&limit=2000`)).items;
    expect(new Set(sorted.map((i) => i.id))).toEqual(new Set(relevance.map((i) => i.id)));
    const compare = compareBy(sort);
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      expect(compare(a, b), `${a.id} before ${b.id}`).toBeLessThan(0);
    }
  });

  it('without sort, relevance orders (the results differ from the installs order)', async () => {
    const relevance = (await page(`semantic=${enc(TEXT)}&limit=20`)).items.map((i) => i.id);
    const installs = (await page(`semantic=${enc(TEXT)}&sort=installs&limit=20`)).items.map((i) => i.id);
    expect(relevance).not.toEqual(installs);
  });
});

describe('q with semantic', () => {
  it('q restricts to its keyword matches and semantic ranks them (Search-Mode: semantic)', async () => {
    const matches = await everything('q=postgres');
    const body = await page(`q=postgres&semantic=${enc('read only access for my agent')}&limit=2000`, 'semantic');
    expect(body.items.length).toBe(Math.min(matches.size, SEMANTIC_CANDIDATES));
    for (const item of body.items) expect(matches.has(item.id), item.id).toBe(true);
  });

  it('q and semantic keep the date filter', async () => {
    const matches = await everything(`q=postgres&updatedSince=${enc(SINCE)}`);
    expect(matches.size).toBeLessThan((await everything('q=postgres')).size);
    const body = await page(`q=postgres&updatedSince=${enc(SINCE)}&semantic=${enc('read only access for my agent')}&limit=2000`, 'semantic');
    expect(body.items.length).toBe(Math.min(matches.size, SEMANTIC_CANDIDATES));
    for (const item of body.items) expect(matches.has(item.id), item.id).toBe(true);
  });
});

describe('agent surfaces', () => {
  it('/ask answers through the hybrid search', async () => {
    const res = await server.fetch(`/ask?q=${enc('turn a PDF into text')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('search-mode')).toBe('hybrid');
    const body = await json<{ itemListElement: Array<{ item: { id: string } }> }>(res);
    expect(body.itemListElement.length).toBeGreaterThan(0);
  });

  it('MCP tools/call search_catalog answers through the hybrid search', async () => {
    const res = await server.fetch('/.well-known/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_catalog', arguments: { query: 'post a message to a Slack channel' } },
      }),
    });
    expect(res.status).toBe(200);
    const reply = await json<{ result: { structuredContent: { searchMode: string; items: Array<{ id: string }> } } }>(res);
    expect(reply.result.structuredContent.searchMode).toBe('hybrid');
    expect(reply.result.structuredContent.items.length).toBeGreaterThan(0);
  });
});
