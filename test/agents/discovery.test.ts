// Guarantees the discovery documents of the agent surfaces: pure generators of the base URL, registered in the
// discovery stage, served with JSON content types, and listing exactly the tools the MCP servers answer with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCard, agentSurfaceFiles, docsMcpDiscovery, mcpDiscovery, mcpServersJson, serverCard } from '../../build/stages/discovery/agent-documents.ts';
import { DISCOVERY_GENERATORS } from '../../build/stages/discovery-stage.ts';
import { MCP_VERSIONS } from '../../src/domain/agents/agent-surfaces.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

const ctx = { baseUrl: 'https://catalog.example' };

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

async function rpc(path: string, method: string): Promise<Record<string, unknown>> {
  const res = await server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
  });
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

describe('generators', () => {
  it('are registered in the discovery stage', () => {
    expect(DISCOVERY_GENERATORS).toContain(agentSurfaceFiles);
  });

  it('write every document as JSON, the GET form of /.well-known/mcp as the index of its directory', () => {
    expect(agentSurfaceFiles(ctx).map((file) => [file.path, file.contentType])).toEqual([
      ['/.well-known/agent-card.json', 'application/json'],
      ['/.well-known/mcp/server-card.json', 'application/json'],
      ['/.well-known/mcp/index.html', 'application/json'],
      ['/.well-known/mcp.json', 'application/json'],
      ['/.well-known/mcp/product', 'application/json'],
      ['/.well-known/mcp/docs', 'application/json'],
      ['/mcp.json', 'application/json'],
    ]);
    for (const file of agentSurfaceFiles(ctx)) expect(() => JSON.parse(String(file.body))).not.toThrow();
  });

  it('are pure functions of the base URL', () => {
    expect(agentSurfaceFiles(ctx)).toEqual(agentSurfaceFiles(ctx));
    expect(JSON.stringify(agentSurfaceFiles(ctx))).not.toContain('catalog.test');
  });

  it('mcp.json maps the stdio command (pointed at this origin), the Streamable HTTP remote and the package run from a checkout', () => {
    expect(mcpServersJson(ctx)).toEqual({
      mcpServers: {
        catalog: { command: 'npx', args: ['-y', 'catalog-mcp'], env: { CATALOG_URL: 'https://catalog.example' } },
        'catalog-remote': { type: 'http', url: 'https://catalog.example/.well-known/mcp' },
        'catalog-checkout': { command: 'node', args: ['packages/catalog-mcp/bin/catalog-mcp.js'], env: { CATALOG_URL: 'https://catalog.example' } },
      },
    });
  });

  it('the server card names the stdio package and the remotes', () => {
    const card = serverCard(ctx);
    expect(card.packages).toEqual([
      expect.objectContaining({ registryType: 'npm', identifier: 'catalog-mcp', transport: { type: 'stdio' }, command: 'npx', args: ['-y', 'catalog-mcp'] }),
    ]);
    expect(card.remotes).toEqual([
      { type: 'streamable-http', url: 'https://catalog.example/.well-known/mcp', supportedProtocolVersions: MCP_VERSIONS },
      { type: 'sse', url: 'https://catalog.example/.well-known/mcp/sse' },
    ]);
  });

  it('the MCP discovery names the endpoint, transports, versions and the docs server', () => {
    expect(mcpDiscovery(ctx)).toMatchObject({
      endpoint: 'https://catalog.example/.well-known/mcp',
      protocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      batchProtocolVersions: ['2025-03-26'],
      docsServer: 'https://catalog.example/.well-known/mcp/docs',
      serverCard: 'https://catalog.example/.well-known/mcp/server-card.json',
    });
    expect(docsMcpDiscovery(ctx)).toMatchObject({
      endpoint: 'https://catalog.example/.well-known/mcp/docs',
      tools: [{ name: 'search_docs' }, { name: 'get_doc' }, { name: 'list_docs' }],
    });
  });

  it('the agent card speaks A2A 1.0 and 0.3 and does not stream', () => {
    expect(agentCard(ctx)).toMatchObject({
      url: 'https://catalog.example/a2a/v1',
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      supportedInterfaces: [{ protocolVersion: '1.0' }, { protocolVersion: '0.3.0' }],
      capabilities: { streaming: false, pushNotifications: false },
    });
  });
});

describe('served documents', () => {
  it.each([
    '/.well-known/agent-card.json',
    '/.well-known/mcp/server-card.json',
    '/.well-known/mcp',
    '/.well-known/mcp.json',
    '/.well-known/mcp/product',
    '/.well-known/mcp/docs',
    '/mcp.json',
  ])('%s is served as application/json with the public base URL', async (path) => {
    const res = await server.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toContain(TEST_BASE_URL);
  });

  it('list exactly the tools the servers answer tools/list with (one source)', async () => {
    const catalogTools = (await rpc('/.well-known/mcp', 'tools/list')).tools;
    expect((await json<{ tools: unknown }>(await server.fetch('/.well-known/mcp'))).tools).toEqual(catalogTools);
    expect((await json<{ tools: unknown }>(await server.fetch('/.well-known/mcp/server-card.json'))).tools).toEqual(catalogTools);
    const docsTools = (await rpc('/.well-known/mcp/docs', 'tools/list')).tools;
    expect((await json<{ tools: unknown }>(await server.fetch('/.well-known/mcp/docs'))).tools).toEqual(docsTools);
  });
});
