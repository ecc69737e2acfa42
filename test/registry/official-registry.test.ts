// Guarantees that /v0.1/servers and /v0.1/servers/{name}/versions[/{version}] answer as the official MCP registry
// API does: every answer validates against the schemas of the registry's own OpenAPI document (fixture, MIT),
// every read path of that document is served, paging, search, updated_since and version filter as it says.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { packageOf, REGISTRY_META_KEY } from '../../src/domain/agents/registry-mapping.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
  components: { schemas: Record<string, unknown> };
}
interface ServerResponse {
  server: { name: string; description: string; version: string; title: string; repository: { url: string }; packages?: unknown[] };
  _meta: Record<string, { id: string; installs: number; stars: number; updatedAt: string; description: string; url: string }>;
}
interface ServerList {
  servers: ServerResponse[];
  metadata: { count: number; nextCursor?: string };
}

const official = parseYaml(readFileSync('test/registry/fixtures/official-registry-openapi.yaml', 'utf8')) as OpenApi;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'official', components: official.components });
const validator = (name: string) => ajv.getSchema(`official#/components/schemas/${name}`)!;

function expectValid(name: 'ServerList' | 'ServerResponse', body: unknown): void {
  const validate = validator(name);
  const valid = validate(body);
  expect(validate.errors ?? [], `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toEqual([]);
  expect(valid).toBe(true);
}

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const list = async (query = ''): Promise<ServerList> => {
  const res = await server.fetch(`/v0.1/servers${query}`);
  expect(res.status).toBe(200);
  return json<ServerList>(res);
};

describe('GET /v0.1/servers', () => {
  it('answers a ServerList of the official schema, 30 a page by default, most starred first', async () => {
    const body = await list();
    expectValid('ServerList', body);
    expect(body.servers).toHaveLength(30);
    expect(body.metadata.count).toBe(30);
    const stars = body.servers.map((s) => s._meta[REGISTRY_META_KEY]!.stars);
    expect(stars).toEqual([...stars].sort((a, b) => b - a));
    for (const entry of body.servers) {
      expect(entry.server.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[a-z0-9-]+$/);
      expect(entry._meta[REGISTRY_META_KEY]!.id).toMatch(/^mcp:/);
      expect(entry.server.description.length).toBeLessThanOrEqual(100);
      expect(entry._meta[REGISTRY_META_KEY]!.description.startsWith(entry.server.description.replace(/…$/, ''))).toBe(true);
    }
  });

  it('pages with metadata.nextCursor until the last page, which has none, without repeats', async () => {
    const first = await list('?limit=100&search=postgres');
    expectValid('ServerList', first);
    const names = first.servers.map((s) => s.server.name);
    let cursor = first.metadata.nextCursor;
    let pages = 1;
    while (cursor && pages < 20) {
      const next = await list(`?limit=100&search=postgres&cursor=${encodeURIComponent(cursor)}`);
      expectValid('ServerList', next);
      names.push(...next.servers.map((s) => s.server.name));
      cursor = next.metadata.nextCursor;
      pages++;
    }
    expect(cursor).toBeUndefined();
    expect(pages).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    const whole = await json<{ items: unknown[]; hasMore: boolean }>(await server.fetch('/api/v1/listings?q=postgres&type=mcp&limit=2000'));
    expect(names.length).toBe(whole.items.length);
  });

  it('search finds MCP servers by name, through the catalog keyword search', async () => {
    const body = await list('?search=filesystem&limit=10');
    expectValid('ServerList', body);
    expect(body.servers.length).toBeGreaterThan(0);
    expect(body.servers.some((s) => /filesystem/i.test(s.server.name + s.server.title))).toBe(true);
  });

  it('updated_since keeps the servers updated at or after it, and version=latest keeps every server', async () => {
    const all = await list('?limit=100');
    const dates = all.servers.map((s) => s._meta[REGISTRY_META_KEY]!.updatedAt).sort();
    const since = dates[Math.floor(dates.length / 2)]!;
    const body = await list(`?limit=100&updated_since=${encodeURIComponent(since)}`);
    expectValid('ServerList', body);
    expect(body.servers.length).toBeGreaterThan(0);
    for (const s of body.servers) expect(Date.parse(s._meta[REGISTRY_META_KEY]!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(since));
    const latest = await list('?limit=100&version=latest');
    expect(latest.servers.map((s) => s.server.name)).toEqual(all.servers.map((s) => s.server.name));
    const one = all.servers[0]!.server;
    const exact = await list(`?limit=100&version=${encodeURIComponent(one.version)}`);
    expect(exact.servers.every((s) => s.server.version === one.version)).toBe(true);
    expect(exact.servers.map((s) => s.server.name)).toContain(one.name);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['updated_since=yesterday', 'updated_since'],
    ['cursor=not-a-cursor', 'cursor'],
    ['include_deleted=maybe', 'include_deleted'],
    [`search=${'x'.repeat(129)}`, 'search'],
  ])('%s is a 400 naming the parameter', async (query, name) => {
    const res = await server.fetch(`/v0.1/servers?${query}`);
    expect(res.status).toBe(400);
    const body = await json<{ code: string; message: string }>(res);
    expect(body.code).toBe('invalid_parameter');
    expect(body.message).toContain(name);
  });

  it('a cursor of another query is refused', async () => {
    const first = await list('?limit=5');
    const res = await server.fetch(`/v0.1/servers?limit=5&search=git&cursor=${encodeURIComponent(first.metadata.nextCursor!)}`);
    expect(res.status).toBe(400);
  });
});

describe('GET /v0.1/servers/{serverName}/versions[/{version}]', () => {
  it('serves every read path of the official document, with answers of its schemas', async () => {
    const [entry] = (await list('?limit=1')).servers;
    const name = encodeURIComponent(entry!.server.name);
    const readPaths = Object.entries(official.paths)
      .filter(([, ops]) => 'get' in ops)
      .map(([path]) => path);
    expect(readPaths).toHaveLength(3);
    for (const path of readPaths) {
      const url = path.replace('{serverName}', name).replace('{version}', 'latest');
      const res = await server.fetch(url);
      expect(res.status, url).toBe(200);
      const body = await json(res);
      expectValid(path.endsWith('{version}') ? 'ServerResponse' : 'ServerList', body);
    }
  });

  it('versions lists the one kept version; latest and the exact version return it; others are 404', async () => {
    const [entry] = (await list('?limit=1&search=postgres')).servers;
    const name = encodeURIComponent(entry!.server.name);
    const versions = await json<ServerList>(await server.fetch(`/v0.1/servers/${name}/versions`));
    expect(versions.servers.map((s) => s.server)).toEqual([entry!.server]);
    const latest = await json<ServerResponse>(await server.fetch(`/v0.1/servers/${name}/versions/latest`));
    const exact = await json<ServerResponse>(await server.fetch(`/v0.1/servers/${name}/versions/${encodeURIComponent(entry!.server.version)}`));
    expect(latest).toEqual(exact);
    expect(latest.server).toEqual(entry!.server);
    const missing = await server.fetch(`/v0.1/servers/${name}/versions/0.0.0-nope`);
    expect(missing.status).toBe(404);
    expect((await json<{ code: string }>(missing)).code).toBe('not_found');
  });

  it('the registry figures match the listing API', async () => {
    const [entry] = (await list('?limit=1')).servers;
    const meta = entry!._meta[REGISTRY_META_KEY]!;
    const listing = await json<{ installs: number; stars: number; url: string }>(await server.fetch(`/api/v1/listings/${encodeURIComponent(meta.id)}`));
    expect({ installs: meta.installs, stars: meta.stars, url: meta.url }).toEqual({ installs: listing.installs, stars: listing.stars, url: listing.url });
  });

  it.each([
    ['an unknown name', 'io.github.nobody%2Fno-such-server'],
    ['a name that is not ours', 'com.example%2Fmy-server'],
    ['a skill (not an MCP server)', 'io.github.vercel-labs%2Ffind-skills'],
  ])('%s is a 404 in the documented error shape', async (_, name) => {
    const res = await server.fetch(`/v0.1/servers/${name}/versions`);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ code: 'not_found' });
  });

  it('the right slug under another owner is not found', async () => {
    const [entry] = (await list('?limit=1')).servers;
    const slug = entry!.server.name.split('/')[1]!;
    const res = await server.fetch(`/v0.1/servers/io.github.someone-else%2F${slug}/versions/latest`);
    expect(res.status).toBe(404);
  });
});

describe('install lines become registry packages', () => {
  it.each([
    ['npx -y @modelcontextprotocol/server-postgres', { registryType: 'npm', identifier: '@modelcontextprotocol/server-postgres', runtimeHint: 'npx' }],
    ['npx -y mcp-remote@0.1.2', { registryType: 'npm', identifier: 'mcp-remote', version: '0.1.2' }],
    ['uvx mcp-server-git', { registryType: 'pypi', identifier: 'mcp-server-git', runtimeHint: 'uvx' }],
    ['pip install mcp-server-fetch==1.2.0', { registryType: 'pypi', identifier: 'mcp-server-fetch', version: '1.2.0' }],
    ['docker run -i --rm mcp/github:1.0', { registryType: 'oci', identifier: 'mcp/github', version: '1.0' }],
  ])('%s', (line, expected) => {
    const pkg = packageOf(line);
    expect(pkg).toMatchObject({ ...expected, transport: { type: 'stdio' } });
    expectValid('ServerResponse', {
      server: { name: 'io.github.a/b', description: 'd', version: '1', packages: [pkg] },
    });
  });

  it.each(['', 'git clone https://github.com/a/b', 'npx', 'docker run'])('%j gives no package', (line) => {
    expect(packageOf(line)).toBeUndefined();
  });
});
