// Guarantees that the official MCP SDK client works against the catalog MCP endpoints (/.well-known/mcp, /mcp, the
// legacy SSE transport) and the docs MCP endpoint: handshake, ping, every tool with schema-valid structured output,
// resources, and a stateless server that never hands out a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { CATALOG_RESOURCE, CATALOG_TOOLS, DOCS_TOOLS } from '../../src/domain/agents/agent-surfaces.ts';
import { CatalogStatsSchema, ListingFileSchema, ListingSchema } from '../../src/domain/schemas.ts';
import { startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const requests: Array<{ method: string; url: string; status: number }> = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** fetch that records what the SDK sends, so the tests can check it never needed a session or a stream. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  requests.push({ method: init?.method ?? 'GET', url: String(input), status: response.status });
  return response;
};

async function connect(path: string): Promise<Client> {
  const client = new Client({ name: 'catalog-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + path), { fetch: recordingFetch }));
  return client;
}

const text = (result: unknown): string => {
  const [first] = (result as { content: Array<{ type: string; text: string }> }).content;
  expect(first?.type).toBe('text');
  return first!.text;
};

describe.each(['/.well-known/mcp', '/mcp'])('the catalog MCP server at %s with the SDK Streamable HTTP client', (path) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(path);
  });
  afterAll(() => client.close());

  it('negotiates the newest revision, names the server and advertises tools and resources', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'catalog', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(client.getInstructions()).toContain('search_catalog');
  });

  it('answers ping', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists exactly the four catalog tools, each with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(CATALOG_TOOLS).sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    expect(tools.find((tool) => tool.name === 'search_catalog')!.inputSchema.required).toEqual(['query']);
  });

  it('search_catalog finds listings for a natural-language need', async () => {
    const result = await client.callTool({ name: 'search_catalog', arguments: { query: 'something to let my agent query Postgres', limit: 5 } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { items: unknown[]; query: string; hasMore: boolean };
    expect(JSON.parse(text(result))).toEqual(structured);
    expect(structured.items).toHaveLength(5);
    const items = structured.items.map((item) => ListingSchema.parse(item));
    expect(items.some((item) => /postgres/i.test(`${item.name} ${item.description}`))).toBe(true);
  });

  it('search_catalog narrows by type', async () => {
    const result = await client.callTool({ name: 'search_catalog', arguments: { query: 'github', type: 'mcp', limit: 3 } });
    const items = (result.structuredContent as { items: Array<{ type: string }> }).items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.type === 'mcp')).toBe(true);
  });

  it('load_skill returns the listing and its files', async () => {
    const found = await client.callTool({ name: 'search_catalog', arguments: { query: 'pdf', type: 'skill', limit: 1 } });
    const [first] = (found.structuredContent as { items: Array<{ id: string; slug: string }> }).items;
    const result = await client.callTool({ name: 'load_skill', arguments: { id: first!.id } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { listing: unknown; files: unknown[] };
    expect(ListingSchema.parse(structured.listing).slug).toBe(first!.slug);
    for (const file of structured.files) ListingFileSchema.parse(file);
    const bySlug = await client.callTool({ name: 'load_skill', arguments: { id: first!.slug } });
    expect(bySlug.structuredContent).toEqual(structured);
  });

  it('load_skill of an unknown id is an isError result with a hint, not a protocol error', async () => {
    const result = await client.callTool({ name: 'load_skill', arguments: { id: 'no-such-listing-anywhere' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no-such-listing-anywhere.*search_catalog/);
  });

  it('top_catalog ranks MCP servers by stars and skills by installs', async () => {
    const mcp = await client.callTool({ name: 'top_catalog', arguments: { type: 'mcp', limit: 5 } });
    const mcpItems = mcp.structuredContent as { sort: string; items: Array<{ stars: number; type: string }> };
    expect(mcpItems.sort).toBe('stars');
    expect(mcpItems.items.map((item) => item.stars)).toEqual([...mcpItems.items.map((item) => item.stars)].sort((a, b) => b - a));
    const skills = await client.callTool({ name: 'top_catalog', arguments: { type: 'skill' } });
    const skillItems = skills.structuredContent as { sort: string; items: Array<{ installs: number }> };
    expect(skillItems.sort).toBe('installs');
    expect(skillItems.items).toHaveLength(10);
    expect(skillItems.items.map((item) => item.installs)).toEqual([...skillItems.items.map((item) => item.installs)].sort((a, b) => b - a));
  });

  it('get_catalog_stats matches the API statistics', async () => {
    const result = await client.callTool({ name: 'get_catalog_stats', arguments: {} });
    const api = await (await server.fetch('/api/v1/catalog/stats')).json();
    expect(CatalogStatsSchema.parse(result.structuredContent)).toEqual(api);
  });

  it('invalid arguments are an isError result naming the argument', async () => {
    const result = await client.callTool({ name: 'top_catalog', arguments: { limit: 500 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("'limit'");
  });

  it('an unknown tool is JSON-RPC error -32602', async () => {
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('lists and reads the catalog HTML resource', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: CATALOG_RESOURCE.uri, mimeType: CATALOG_RESOURCE.mimeType })]);
    const { contents } = await client.readResource({ uri: 'ui://catalog/catalog.html' });
    const [html] = contents as Array<{ uri: string; text: string }>;
    expect(html!.uri).toBe('ui://catalog/catalog.html');
    expect(html!.text).toMatch(/^<!doctype html>/);
    expect(html!.text).toContain('MCP servers');
    expect(html!.text).not.toMatch(/<script|src="http/);
    await expect(client.readResource({ uri: 'ui://catalog/nothing.html' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('statelessness', () => {
  it('never issues a session id and answers the SDK stream probe with 405 instead of a stream', async () => {
    requests.length = 0;
    const client = await connect('/.well-known/mcp');
    await client.listTools();
    // The SDK opens its standalone GET stream after notifications/initialized; wait for that probe.
    for (let i = 0; i < 50 && !requests.some((r) => r.method === 'GET'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.close();
    expect(requests.filter((r) => r.method === 'GET')).toEqual([{ method: 'GET', url: `${server.origin}/.well-known/mcp`, status: 405 }]);
    expect(requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([200, 202, 200]);
    expect((client.transport as StreamableHTTPClientTransport | undefined)?.sessionId).toBeUndefined();
  });

  it('ignores an Mcp-Session-Id a client sends anyway', async () => {
    const res = await server.fetch('/.well-known/mcp', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': 'made-up',
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
  });
});

describe('the legacy HTTP+SSE transport at /.well-known/mcp/sse', () => {
  it('works with the SDK SSE client: handshake, tools and a call', async () => {
    const client = new Client({ name: 'catalog-sse-test', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(server.origin + '/.well-known/mcp/sse')));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(4);
    const stats = await client.callTool({ name: 'get_catalog_stats', arguments: {} });
    expect((stats.structuredContent as { total: number }).total).toBeGreaterThan(0);
    await client.close();
  });
});

describe('the docs MCP server at /.well-known/mcp/docs', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('/.well-known/mcp/docs');
  });
  afterAll(() => client.close());

  it('offers search_docs, get_doc and list_docs and no resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(DOCS_TOOLS).sort());
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
  });

  it('lists, searches and reads the docs pages', async () => {
    const list = await client.callTool({ name: 'list_docs', arguments: {} });
    const docs = (list.structuredContent as { docs: Array<{ slug: string; url: string }> }).docs;
    expect(docs.map((doc) => doc.slug)).toEqual(expect.arrayContaining(['api', 'mcp', 'agents']));
    expect(docs.find((doc) => doc.slug === 'mcp')!.url).toBe('http://catalog.test/docs/mcp/');

    const search = await client.callTool({ name: 'search_docs', arguments: { query: 'Idempotency-Key replay' } });
    const results = (search.structuredContent as { results: Array<{ slug: string; snippet: string }> }).results;
    expect(results[0]!.slug).toMatch(/^(agents|mcp)$/);
    expect(results[0]!.snippet.length).toBeGreaterThan(20);

    const page = await client.callTool({ name: 'get_doc', arguments: { slug: 'mcp' } });
    expect((page.structuredContent as { markdown: string }).markdown).toContain('search_catalog');
    const missing = await client.callTool({ name: 'get_doc', arguments: { slug: 'nope' } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('list_docs');
  });
});
