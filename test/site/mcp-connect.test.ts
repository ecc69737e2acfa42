// Guarantees every MCP server's page has a Connect section: transport, command or URL, the variables it needs and
// ready-to-paste configuration (an mcpServers entry, VS Code's mcp.json) made from what the listing publishes, or
// a plain "Nothing published"; and that /v0.1/servers carries the same packages.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { connectionsOf } from '../../src/domain/listing/mcp-connect.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

const decode = (html: string) =>
  html.replaceAll('&quot;', '"').replaceAll('&#34;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').replaceAll('&#39;', "'");
const connectOf = (html: string) => decode(/<section class="connect"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '');

describe('connections made from a listing', () => {
  const base = { type: 'mcp' as const, repo: 'acme/mcp', name: 'Acme', slug: 'acme' };

  it('a package runs over stdio, its secret asked for by VS Code rather than written down', () => {
    const [connection] = connectionsOf({ ...base, installCommand: 'docker run -i --rm -e ACME_TOKEN acme/mcp:1.2' });
    expect(connection).toMatchObject({
      transport: 'stdio',
      target: 'docker run -i --rm -e ACME_TOKEN acme/mcp:1.2',
      variables: [{ name: 'ACME_TOKEN', required: true, secret: true }],
    });
    expect(connection!.mcpServers).toEqual({
      mcpServers: { acme: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'ACME_TOKEN', 'acme/mcp:1.2'], env: { ACME_TOKEN: '<ACME_TOKEN>' } } },
    });
    expect(connection!.vscode).toEqual({
      inputs: [{ type: 'promptString', id: 'acme-token', description: 'ACME_TOKEN', password: true }],
      servers: {
        acme: { type: 'stdio', command: 'docker', args: ['run', '-i', '--rm', '-e', 'ACME_TOKEN', 'acme/mcp:1.2'], env: { ACME_TOKEN: '${input:acme-token}' } },
      },
    });
    expect(connection!.claudeCode).toBe("claude mcp add -e 'ACME_TOKEN=<ACME_TOKEN>' acme -- docker run -i --rm -e ACME_TOKEN acme/mcp:1.2");
  });

  it('a remote is reached by its URL', () => {
    const [connection] = connectionsOf({ ...base, remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' }] });
    expect(connection).toMatchObject({
      transport: 'streamable-http',
      target: 'https://mcp.acme.dev/mcp',
      mcpServers: { mcpServers: { acme: { type: 'http', url: 'https://mcp.acme.dev/mcp' } } },
      vscode: { servers: { acme: { type: 'http', url: 'https://mcp.acme.dev/mcp' } } },
    });
    expect(connection!.claudeCode).toBe('claude mcp add --transport http acme https://mcp.acme.dev/mcp');
  });

  it('nothing published gives no connection', () => {
    expect(connectionsOf({ ...base, installCommand: 'git clone https://github.com/acme/mcp' })).toEqual([]);
  });
});

describe('MCP pages and the registry API', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startInProcess();
  });
  afterAll(() => server.close());

  const listing = async (slug: string) => (await json(await server.fetch(`/api/v1/listings/${slug}`))) as Listing;
  const pageOf = async (slug: string) => (await server.fetch(`/listings/${slug}/`, { headers: { Accept: 'text/html' } })).text();

  it.each([
    ['everything', 'stdio', 'npx -y @modelcontextprotocol/server-everything'],
    ['fetch', 'stdio', 'uvx mcp-server-fetch'],
    ['sqlite-archived', 'stdio', 'docker run -i --rm mcp/sqlite'],
  ])('%s: transport, command and both configurations, as the listing says', async (slug, transport, command) => {
    const section = connectOf(await pageOf(slug));
    const [connection] = connectionsOf(await listing(slug));
    expect(connection!.target).toBe(command);
    expect(section).toContain(transport);
    expect(section).toContain(command);
    expect(section).toContain(JSON.stringify(connection!.mcpServers, null, 2));
    expect(section).toContain(JSON.stringify(connection!.vscode, null, 2));
  });

  it('a server that publishes nothing says so plainly', async () => {
    const section = connectOf(await pageOf('ecc'));
    expect(section).toContain('Nothing published');
    expect(section).not.toContain('mcpServers');
  });

  it('every MCP page of the first 200 by stars has the section, with a configuration exactly when the listing publishes a way in', async () => {
    const { items } = (await json(await server.fetch('/api/v1/listings?type=mcp&sort=stars&limit=200'))) as { items: Listing[] };
    const missing: string[] = [];
    for (const item of items) {
      const section = connectOf(await pageOf(item.slug));
      const published = connectionsOf(item).length > 0;
      if (!section || section.includes('mcpServers') !== published || section.includes('Nothing published') === published) missing.push(item.slug);
    }
    expect(missing).toEqual([]);
  });

  it('/v0.1/servers carries the packages the listing carries', async () => {
    const res = await server.fetch('/v0.1/servers?search=server-everything&limit=5');
    const { servers } = (await json(res)) as { servers: Array<{ server: { packages?: unknown[] }; _meta: Record<string, { slug: string }> }> };
    const everything = servers.find((s) => Object.values(s._meta)[0]!.slug === 'everything');
    expect(everything?.server.packages).toEqual((await listing('everything')).packages);
    expect(everything?.server.packages).toEqual([
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: '@modelcontextprotocol/server-everything',
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
      },
    ]);
  });
});
