// Guarantees the catalog is an ARD Agent Registry (Agentic Resource Discovery, ards-project/ard-spec): the manifest
// and every entry satisfy the MUSTs of §4 (required fields, urn:air: identifiers anchored on a domain, exactly one of
// url/data) and of §5 (no trustManifest without its identity), validated against ARD's own JSON Schema (fixture);
// the registry entry (application/ai-registry+json) leads to the API of §7, whose Search ranks with the same hybrid
// search as `semantic`, with 0-100 scores, paging, filters and federation modes, and whose Explore, List and lookup
// answer in the spec's shapes, errors carrying Appendix B codes.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ARD_ENTRY_TYPES, ARD_REGISTRY_TYPE, parseArdIdentifier, representativeQueries } from '../../src/domain/agents/ard.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

const schema = JSON.parse(readFileSync('test/ard/fixtures/ai-catalog.schema.json', 'utf8')) as { $id: string };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(schema);
const validateManifest = ajv.getSchema(schema.$id)!;
const validateEntry = ajv.getSchema(`${schema.$id}#/$defs/catalogEntry`)!;

function expectValid(validate: typeof validateEntry, value: unknown): void {
  const valid = validate(value);
  expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
  expect(valid).toBe(true);
}

/** §4.2.1: urn:air:<publisher FQDN>:<namespace...>:<agent-name>. */
const URN = /^urn:air:([a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+)(?::[a-zA-Z0-9._-]+)*:([a-zA-Z0-9._-]+)$/;

interface Entry {
  identifier: string;
  displayName: string;
  type: string;
  url?: string;
  data?: unknown;
  description?: string;
  capabilities?: string[];
  tags?: string[];
  representativeQueries?: string[];
  trustManifest?: { identity?: string };
  metadata?: { listingId: string; installs: number };
  score?: number;
  source?: string;
}

/** Every MUST of §4.2/§5 that applies to one entry. */
function expectArdEntry(entry: Entry): void {
  expectValid(validateEntry, entry);
  expect(entry.identifier).toMatch(URN);
  expect(entry.displayName.length).toBeGreaterThan(0);
  expect(entry.type.length).toBeGreaterThan(0);
  expect('url' in entry !== 'data' in entry).toBe(true);
  if (entry.trustManifest) expect(entry.trustManifest.identity).toBeTruthy();
  if (entry.representativeQueries) expect(entry.representativeQueries.length).toBeGreaterThanOrEqual(2);
}

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
  await server.app.semantic.settled;
});
afterAll(() => server.close());

const post = (path: string, body: unknown) =>
  server.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const search = async (body: unknown) => {
  const res = await post('/ard/search', body);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<{ results: Entry[]; referrals?: Entry[]; pageToken?: string }>(res);
};

describe('the ARD manifest (§4.1, §6.1) and the registry entry (§7)', () => {
  it.each(['/.well-known/ard.json', '/.well-known/ai-catalog.json'])('%s names this registry with an application/ai-registry+json entry', async (path) => {
    const manifest = await json<{ entries: Entry[] }>(await server.fetch(path));
    const registry = manifest.entries.find((e) => e.type === ARD_REGISTRY_TYPE);
    expect(registry?.url).toBe(`${TEST_BASE_URL}/ard`);
    expect(registry?.identifier).toMatch(/^urn:air:catalog\.test:registry:/);
  });

  it("the registry entry's url (the base path) answers with the endpoints under it", async () => {
    const res = await server.fetch('/ard');
    expect(res.status).toBe(200);
    const body = await json<{ type: string; endpoints: Record<string, string> }>(res);
    expect(body.type).toBe(ARD_REGISTRY_TYPE);
    expect(body.endpoints).toMatchObject({
      search: `${TEST_BASE_URL}/ard/search`,
      explore: `${TEST_BASE_URL}/ard/explore`,
      agents: `${TEST_BASE_URL}/ard/agents`,
    });
  });

  it("/.well-known/ard.json validates against ARD's manifest schema, and every entry meets §4.2", async () => {
    const manifest = await json<{ entries: Entry[] }>(await server.fetch('/.well-known/ard.json'));
    expectValid(validateManifest, manifest);
    for (const entry of manifest.entries) {
      expect(entry.displayName, entry.identifier).toBeTruthy();
      expect(entry.identifier).toMatch(/^urn:air:[a-z0-9.-]+(:[a-zA-Z0-9._-]+)+$/);
      expect('url' in entry !== 'data' in entry).toBe(true);
    }
  });
});

describe('POST /ard/search (§7.2)', () => {
  it('ranks with the same hybrid search as semantic: the same listings in the same order', async () => {
    const text = 'let my agent query a Postgres database';
    const body = await search({ query: { text }, pageSize: 20, federation: 'none' });
    const api = await json<{ items: Array<{ id: string }> }>(await server.fetch(`/api/v1/listings?semantic=${encodeURIComponent(text)}&limit=20`));
    expect(body.results.map((e) => e.metadata!.listingId)).toEqual(api.items.map((l) => l.id));
    expect(body.results.length).toBe(20);
  });

  it('answers catalog entries with an integer score 0-100 (best first) and the registry as source', async () => {
    const body = await search({ query: { text: 'generate pdf documents' }, pageSize: 10 });
    expect(body.results.length).toBe(10);
    for (const entry of body.results) {
      expectArdEntry(entry);
      expect(Number.isInteger(entry.score)).toBe(true);
      expect(entry.score).toBeGreaterThanOrEqual(0);
      expect(entry.score).toBeLessThanOrEqual(100);
      expect(entry.source).toBe(`${TEST_BASE_URL}/ard`);
    }
    const scores = body.results.map((e) => e.score!);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBe(100);
  });

  it('pages with pageToken through the whole matched set without repeats', async () => {
    const query = { text: 'kubernetes', filter: { type: ARD_ENTRY_TYPES.mcp } };
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const body = await search({ query, pageSize: 100, ...(token ? { pageToken: token } : {}) });
      seen.push(...body.results.map((e) => e.identifier));
      token = body.pageToken;
      pages++;
    } while (token && pages < 10);
    expect(token).toBeUndefined();
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('filters: type and capabilities narrow the results (OR within a key, AND across keys); a bare scalar is one value', async () => {
    const mcp = await search({ query: { text: 'database', filter: { type: [ARD_ENTRY_TYPES.mcp] } }, pageSize: 50 });
    expect(mcp.results.length).toBeGreaterThan(0);
    expect(mcp.results.every((e) => e.type === ARD_ENTRY_TYPES.mcp)).toBe(true);
    const both = await search({
      query: { text: 'database', filter: { type: [ARD_ENTRY_TYPES.mcp, ARD_ENTRY_TYPES.skill], capabilities: 'databases' } },
      pageSize: 50,
    });
    expect(both.results.length).toBeGreaterThan(0);
    for (const e of both.results) {
      expect([ARD_ENTRY_TYPES.mcp, ARD_ENTRY_TYPES.skill]).toContain(e.type);
      expect(e.capabilities).toContain('databases');
    }
    const publisher = await search({ query: { text: 'database', filter: { publisher: 'example.com' } } });
    expect(publisher.results).toEqual([]);
  });

  it("the spec's names for the same artifacts filter too (the conformance tool's probe: MCP server cards)", async () => {
    const body = await search({
      query: { text: 'weather forecast tools', filter: { type: ['application/mcp-server-card+json'] } },
      federation: 'none',
      pageSize: 2,
    });
    expect(body.results).toHaveLength(2);
    expect(body.results.every((e) => e.type === ARD_ENTRY_TYPES.mcp)).toBe(true);
  });

  it('federation: none and auto answer no referrals; referrals answers the (empty) list', async () => {
    expect(await search({ query: { text: 'git' }, federation: 'none' })).not.toHaveProperty('referrals');
    expect(await search({ query: { text: 'git' } })).not.toHaveProperty('referrals');
    expect((await search({ query: { text: 'git' }, federation: 'referrals' })).referrals).toEqual([]);
  });

  it.each([
    ['no text', { query: {} }],
    ['blank text', { query: { text: '   ' } }],
    ['pageSize above 100', { query: { text: 'git' }, pageSize: 101 }],
    ['an unknown federation mode', { query: { text: 'git' }, federation: 'everywhere' }],
    ['an unknown member', { query: { text: 'git' }, limit: 5 }],
    ['an unsupported filter field', { query: { text: 'git', filter: { 'metadata.installs': '5' } } }],
    ['a foreign pageToken', { query: { text: 'git' }, pageToken: 'bm9wZQ' }],
  ])('%s is a 400 with errorCode INVALID_ARGUMENT', async (_, body) => {
    const res = await post('/ard/search', body);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ errorCode: 'INVALID_ARGUMENT', message: expect.any(String) });
  });
});

describe('POST /ard/explore (§7.3)', () => {
  it('without a query, facets cover the entire registry: type counts sum to the catalog', async () => {
    const res = await post('/ard/explore', { resultType: { facets: [{ field: 'type' }, { field: 'publisher' }] } });
    expect(res.status).toBe(200);
    const body = await json<{ resultType: string; facets: Record<string, { buckets: Array<{ value: string; count: number }>; otherCount?: number }> }>(res);
    expect(body.resultType).toBe('facets');
    const stats = await json<{ total: number; byType: Record<string, number> }>(await server.fetch('/api/v1/catalog/stats'));
    const byType = Object.fromEntries(body.facets.type!.buckets.map((b) => [b.value, b.count]));
    for (const [type, count] of Object.entries(stats.byType)) expect(byType[ARD_ENTRY_TYPES[type as keyof typeof ARD_ENTRY_TYPES]] ?? 0).toBe(count);
    expect(body.facets.publisher!.buckets).toEqual([{ value: 'github.com', count: stats.total }]);
  });

  it('limit keeps the largest buckets and otherCount counts the entries beyond it; minCount drops small ones', async () => {
    const all = await json<{ facets: { capabilities: { buckets: Array<{ count: number }> } } }>(
      await post('/ard/explore', { query: { text: 'database' }, resultType: { facets: [{ field: 'capabilities', limit: 1000 }] } }),
    );
    const counts = all.facets.capabilities.buckets.map((b) => b.count);
    expect(counts.length).toBeGreaterThan(3);
    const top = await json<{ facets: { capabilities: { buckets: Array<{ count: number }>; otherCount: number } } }>(
      await post('/ard/explore', { query: { text: 'database' }, resultType: { facets: [{ field: 'capabilities', limit: 3 }] } }),
    );
    expect(top.facets.capabilities.buckets.map((b) => b.count)).toEqual(counts.slice(0, 3));
    expect(top.facets.capabilities.otherCount).toBe(counts.slice(3).reduce((a, b) => a + b, 0));
    const min = counts[2]!;
    const filtered = await json<{ facets: { capabilities: { buckets: Array<{ count: number }> } } }>(
      await post('/ard/explore', { query: { text: 'database' }, resultType: { facets: [{ field: 'capabilities', limit: 1000, minCount: min }] } }),
    );
    expect(filtered.facets.capabilities.buckets.every((b) => b.count >= min)).toBe(true);
  });

  it('a text query facets the same matched set Search pages through', async () => {
    const query = { text: 'slack messages', filter: { type: ARD_ENTRY_TYPES.mcp } };
    const facets = await json<{ facets: { type: { buckets: Array<{ count: number }> } } }>(
      await post('/ard/explore', { query, resultType: { facets: [{ field: 'type' }] } }),
    );
    let total = 0;
    let token: string | undefined;
    do {
      const page = await search({ query, pageSize: 100, ...(token ? { pageToken: token } : {}) });
      total += page.results.length;
      token = page.pageToken;
    } while (token);
    expect(facets.facets.type.buckets).toEqual([{ value: ARD_ENTRY_TYPES.mcp, count: total }]);
  });

  it.each([
    ['no resultType', { query: { text: 'x' } }],
    ['an unknown facet field', { resultType: { facets: [{ field: 'metadata.installs' }] } }],
  ])('%s is a 400 with errorCode INVALID_ARGUMENT', async (_, body) => {
    const res = await post('/ard/explore', body);
    expect(res.status).toBe(400);
    expect((await json<{ errorCode: string }>(res)).errorCode).toBe('INVALID_ARGUMENT');
  });
});

describe('GET /ard/agents and /ard/agents/{identifier} (§7.4, Appendix A)', () => {
  it('lists every listing as an entry with total and pageToken, 20 by default, deterministic', async () => {
    const res = await server.fetch('/ard/agents');
    expect(res.status).toBe(200);
    const body = await json<{ items: Entry[]; total: number; pageToken: string }>(res);
    const stats = await json<{ total: number }>(await server.fetch('/api/v1/catalog/stats'));
    expect(body.items).toHaveLength(20);
    expect(body.total).toBe(stats.total);
    for (const entry of body.items) expectArdEntry(entry);
    const next = await json<{ items: Entry[] }>(await server.fetch(`/ard/agents?pageToken=${body.pageToken}`));
    expect(next.items[0]!.identifier).not.toBe(body.items[0]!.identifier);
    expect(await json(await server.fetch('/ard/agents'))).toEqual(body);
  });

  it("filter takes type = '…' AND publisherId = '…' AND updatedAfter > '…'", async () => {
    const filter = `type = '${ARD_ENTRY_TYPES.workflow}' AND publisherId = 'github.com' AND updatedAfter > '2000-01-01T00:00:00Z'`;
    const body = await json<{ items: Entry[]; total: number }>(await server.fetch(`/ard/agents?pageSize=100&filter=${encodeURIComponent(filter)}`));
    const stats = await json<{ byType: Record<string, number> }>(await server.fetch('/api/v1/catalog/stats'));
    expect(body.total).toBe(stats.byType.workflow);
    expect(body.items.every((e) => e.type === ARD_ENTRY_TYPES.workflow)).toBe(true);
  });

  it.each(['pageSize=0', 'pageSize=101', "filter=createdAfter > '2020'", 'filter=type', 'orderBy=random'])('%s is a 400', async (query) => {
    const res = await server.fetch(`/ard/agents?${query}`);
    expect(res.status).toBe(400);
    expect((await json<{ errorCode: string }>(res)).errorCode).toBe('INVALID_ARGUMENT');
  });

  it('an identifier resolves to its entry; its url is the artifact (SKILL.md of a stored skill, server.json of an MCP server)', async () => {
    const [first] = (await search({ query: { text: 'pdf', filter: { type: ARD_ENTRY_TYPES.skill } }, pageSize: 1 })).results;
    const { score: _score, source: _source, ...entry } = first!;
    const res = await server.fetch(`/ard/agents/${encodeURIComponent(entry.identifier)}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(entry);
    expect(parseArdIdentifier(entry.identifier)?.publisher).toBe('github.com');
    const [mcp] = (await search({ query: { text: 'postgres', filter: { type: ARD_ENTRY_TYPES.mcp } }, pageSize: 1 })).results;
    const artifact = await server.fetch(mcp!.url!.replace(TEST_BASE_URL, ''));
    expect(artifact.status).toBe(200);
    expect(await json(artifact)).toHaveProperty('server.name');
  });

  it.each(['urn:air:github.com:nobody:nothing:no-such-listing', 'not-a-urn'])('%s is a 404 with errorCode NOT_FOUND', async (identifier) => {
    const res = await server.fetch(`/ard/agents/${encodeURIComponent(identifier)}`);
    expect(res.status).toBe(404);
    expect((await json<{ errorCode: string }>(res)).errorCode).toBe('NOT_FOUND');
  });
});

describe('representative queries (§4.2: SHOULD be 2-5)', () => {
  it.each([
    [{ type: 'mcp' as const, name: 'postgres-mcp', description: 'Query and manage PostgreSQL databases from your agent.', category: 'databases' }],
    [{ type: 'skill' as const, name: 'pdf', description: '', category: 'documents' }],
  ])('%o', (listing) => {
    const queries = representativeQueries(listing);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    expect(queries.length).toBeLessThanOrEqual(5);
    expect(queries.some((q) => q.includes(listing.name))).toBe(true);
  });
});
