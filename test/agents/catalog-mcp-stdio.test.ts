// Guarantees the catalog-mcp package (packages/catalog-mcp): started as a process and driven over stdio by the
// official SDK client, it serves the same four tools as the live service, against a running instance (CATALOG_URL)
// and offline over a data directory (CATALOG_DATA_DIR); `npm pack` makes a tarball with its bin and manifest.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CATALOG_TOOLS } from '../../src/domain/agents/agent-surfaces.ts';
import { MCP_PACKAGE } from '../../src/domain/brand.ts';
import { sharedDataDir } from '../support/shared-build.ts';
import { startServer, type TestServer } from '../support/server.ts';

const PACKAGE_DIR = 'packages/catalog-mcp';
const BIN = join(PACKAGE_DIR, 'bin', 'catalog-mcp.js');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function stdioClient(env: Record<string, string>, args: string[] = []): Promise<Client> {
  const client = new Client({ name: 'catalog-stdio-test', version: '1.0.0' });
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env: { ...inherited, ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`catalog-mcp did not start: ${String(error)}\n${stderr}`, { cause: error });
  }
  return client;
}

async function expectTheFourTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(CATALOG_TOOLS).sort());
  const search = await client.callTool({ name: 'search_catalog', arguments: { query: 'postgres', type: 'mcp', limit: 3 } });
  expect(search.isError).toBeFalsy();
  const found = (search.structuredContent as { items: Array<{ type: string }> }).items;
  expect(found.length).toBeGreaterThan(0);
  expect(found.every((item) => item.type === 'mcp')).toBe(true);
  const stats = await client.callTool({ name: 'get_catalog_stats', arguments: {} });
  expect((stats.structuredContent as { total: number }).total).toBeGreaterThan(10_000);
}

describe('catalog-mcp over stdio', () => {
  it('against a running instance (CATALOG_URL): the same four tools, answering from it', async () => {
    const client = await stdioClient({ CATALOG_URL: server.origin });
    try {
      await expectTheFourTools(client);
      const live = (await (
        await server.fetch('/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        })
      ).json()) as { result: { tools: unknown[] } };
      expect((await client.listTools()).tools).toEqual(live.result.tools);
    } finally {
      await client.close();
    }
  });

  it('offline, over a data directory (CATALOG_DATA_DIR): the same four tools, no network', async () => {
    const client = await stdioClient({ CATALOG_DATA_DIR: sharedDataDir(), CATALOG_URL: '' });
    try {
      await expectTheFourTools(client);
    } finally {
      await client.close();
    }
  });

  it('a catalog it cannot reach is a tool error the model can read, not a crash', async () => {
    const client = await stdioClient({ CATALOG_URL: server.origin });
    try {
      await server.close();
      const result = await client.callTool({ name: 'get_catalog_stats', arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('catalog-mcp:');
    } finally {
      await client.close();
      server = await startServer();
    }
  });
});

describe('the package', () => {
  it(`is named ${MCP_PACKAGE}, with the bin the discovery files advertise, and npm pack makes its tarball`, () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(manifest.name).toBe(MCP_PACKAGE);
    expect(manifest.bin).toEqual({ [MCP_PACKAGE]: 'bin/catalog-mcp.js' });
    expect(Object.keys(manifest.dependencies)).toEqual(['@modelcontextprotocol/sdk']);
    const out = mkdtempSync(join(tmpdir(), 'catalog-mcp-pack-'));
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: PACKAGE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed!.files.map((file) => file.path).sort()).toEqual(['README.md', 'bin/catalog-mcp.js', 'package.json']);
    const listing = execFileSync('tar', ['-tzf', join(out, packed!.filename)], { encoding: 'utf8' });
    expect(listing).toContain('package/bin/catalog-mcp.js');
  });
});
