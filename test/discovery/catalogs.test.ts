// Guarantees /.well-known/api-catalog is an RFC 9727 linkset (as application/linkset+json with the RFC 9727
// profile, or application/json when that is what the client asks for, with the api-catalog Link header) naming
// the API, its OpenAPI document and docs, the MCP discovery and the A2A card; and that /.well-known/ai-catalog.json
// is an AI Catalog 1.0 document listing the MCP server card, the A2A card and the catalog skill, whose SKILL.md
// is a valid Agent Skills file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AGENT_PATHS } from '../../src/domain/agents/agent-surfaces.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
interface Target {
  href: string;
  type?: string;
  title?: string;
}
type Context = { anchor: string } & Record<string, unknown>;

describe('/.well-known/api-catalog', () => {
  let linkset: Context[];
  beforeAll(async () => {
    linkset = (await json<{ linkset: Context[] }>(await server.fetch('/.well-known/api-catalog'))).linkset;
  });
  const context = (anchorPath: string) => {
    const found = linkset.find((c) => c.anchor === TEST_BASE_URL + anchorPath);
    expect(found, anchorPath).toBeDefined();
    return found!;
  };
  const targets = (c: Context, rel: string) => c[rel] as Target[];

  it.each([
    [undefined, LINKSET_TYPE],
    ['*/*', LINKSET_TYPE],
    ['application/linkset+json', LINKSET_TYPE],
    ['application/linkset+json, application/json', LINKSET_TYPE],
    ['application/json', 'application/json; charset=utf-8'],
    ['application/json, application/linkset+json;q=0.5', 'application/json; charset=utf-8'],
  ])('Accept %s is answered as %s, with the same linkset', async (accept, type) => {
    const res = await server.fetch('/.well-known/api-catalog', { headers: accept ? { Accept: accept } : {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect((await json<{ linkset: Context[] }>(res)).linkset).toEqual(linkset);
  });

  it('answers HEAD (and GET) with the api-catalog Link header of RFC 9727 §2', async () => {
    for (const method of ['HEAD', 'GET']) {
      const res = await server.fetch('/.well-known/api-catalog', { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('link')).toBe(`<${TEST_BASE_URL}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`);
    }
  });

  it('is a Linkset: contexts with an absolute anchor and arrays of target objects with an absolute href', () => {
    expect(linkset.length).toBeGreaterThan(1);
    for (const c of linkset) {
      expect(c.anchor).toMatch(/^http:\/\/catalog\.test\//);
      for (const [rel, value] of Object.entries(c)) {
        if (rel === 'anchor') continue;
        expect(Array.isArray(value), rel).toBe(true);
        for (const target of value as Target[]) {
          expect(target.href).toMatch(/^http:\/\/catalog\.test\//);
          for (const key of Object.keys(target)) expect(['href', 'type', 'title']).toContain(key);
        }
      }
    }
  });

  it('lists each API as an item of the catalog itself (RFC 9727 §3.1)', () => {
    const self = context('/.well-known/api-catalog');
    const items = targets(self, 'item').map((t) => t.href);
    for (const c of linkset.filter((c) => c !== self)) expect(items).toContain(c.anchor);
  });

  it('describes the JSON API with its OpenAPI document, docs, policies and status', () => {
    const api = context('/api/v1');
    expect(targets(api, 'service-desc')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ href: `${TEST_BASE_URL}/openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }),
        expect.objectContaining({ href: `${TEST_BASE_URL}/openapi.yaml`, type: 'application/yaml' }),
      ]),
    );
    expect(targets(api, 'service-doc')).toEqual(expect.arrayContaining([expect.objectContaining({ href: `${TEST_BASE_URL}/docs/api/`, type: 'text/html' })]));
    expect(targets(api, 'service-meta').map((t) => t.href)).toEqual(expect.arrayContaining([`${TEST_BASE_URL}/pricing.md`, `${TEST_BASE_URL}/auth.md`]));
    expect(targets(api, 'status').map((t) => t.href)).toEqual([`${TEST_BASE_URL}/api/v1/meta`]);
  });

  it('points at the MCP discovery and server card, and at the A2A agent card', () => {
    expect(targets(context(AGENT_PATHS.mcp), 'service-desc').map((t) => t.href)).toEqual(
      expect.arrayContaining([TEST_BASE_URL + AGENT_PATHS.serverCard, TEST_BASE_URL + AGENT_PATHS.mcp]),
    );
    expect(targets(context(AGENT_PATHS.a2a), 'service-desc').map((t) => t.href)).toEqual([TEST_BASE_URL + AGENT_PATHS.agentCard]);
  });

  it('says the right media type for every target served here', async () => {
    for (const target of linkset.flatMap((c) =>
      Object.entries(c)
        .filter(([rel]) => rel !== 'anchor')
        .flatMap(([, v]) => v as Target[]),
    )) {
      if (!target.type || target.type === 'text/html') continue; // HTML pages are the site stage's (see links.test.ts)
      const res = await server.fetch(target.href.slice(TEST_BASE_URL.length), { headers: { Accept: target.type } });
      expect(res.status, target.href).toBe(200);
      const served = res.headers.get('content-type')!.split(';')[0];
      // The OpenAPI document is JSON whatever its vnd type says.
      expect(served, target.href).toBe(target.type.startsWith('application/vnd.oai.openapi+json') ? 'application/json' : target.type.split(';')[0]);
    }
  });
});

describe('/.well-known/ai-catalog.json', () => {
  interface Entry {
    identifier: string;
    type: string;
    url?: string;
    data?: unknown;
    displayName?: string;
    description?: string;
  }
  let document: { specVersion: string; host: { displayName: string; identifier?: string }; entries: Entry[]; extensions?: Record<string, unknown> };
  beforeAll(async () => {
    document = await json(await server.fetch('/.well-known/ai-catalog.json'));
  });

  it('is an AI Catalog 1.0 document that names the specification it follows', () => {
    expect(document.specVersion).toBe('1.0');
    expect(document.host.displayName).toBe('catalog');
    expect(document.host.identifier).toBe('catalog.test');
    expect(document.extensions?.specification).toMatchObject({ name: 'AI Catalog', version: '1.0', url: expect.stringMatching(/^https:\/\//) });
    for (const entry of document.entries) {
      expect(entry.identifier).toMatch(/^urn:air:catalog\.test:[a-z0-9-]+(:[a-z0-9-]+)*:[a-z0-9-]+$/);
      expect(entry.type).toMatch(/^application\/[a-z0-9.+-]+$/);
      expect('url' in entry !== 'data' in entry, entry.identifier).toBe(true);
    }
    expect(new Set(document.entries.map((e) => e.identifier)).size).toBe(document.entries.length);
  });

  it.each([
    ['application/mcp-server-card+json', AGENT_PATHS.serverCard, ['name', 'remotes']],
    ['application/a2a-agent-card+json', AGENT_PATHS.agentCard, ['name', 'skills']],
  ])('lists the %s at %s, which is served', async (type, path, fields) => {
    const entry = document.entries.find((e) => e.type === type);
    expect(entry?.url).toBe(TEST_BASE_URL + path);
    const artifact = await json<Record<string, unknown>>(await server.fetch(path));
    for (const field of fields) expect(artifact[field], field).toBeDefined();
  });

  it('lists the catalog skill, whose SKILL.md has valid Agent Skills front matter and covers the API', async () => {
    const entry = document.entries.find((e) => e.type === 'application/agent-skills+md');
    expect(entry?.url).toBe(`${TEST_BASE_URL}/skills/catalog/SKILL.md`);
    const res = await server.fetch('/skills/catalog/SKILL.md');
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(match).not.toBeNull();
    const front = parseYaml(match![1]!) as { name: string; description: string };
    expect(front.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(front.name.length).toBeLessThanOrEqual(64);
    expect(front.description.length).toBeGreaterThan(20);
    expect(front.description.length).toBeLessThanOrEqual(1024);
    expect(entry?.description).toBe(front.description);
    for (const topic of [
      '/api/v1/listings?q=',
      'cursor',
      '{type}:{owner}/{repo}#{slug}',
      '/ask?q=',
      '/.well-known/mcp',
      '/a2a/v1',
      'synthetic',
      'Retry-After',
    ]) {
      expect(text, topic).toContain(topic);
    }
  });

  it('is served as application/json, or as application/ai-catalog+json to a client asking for that', async () => {
    expect((await server.fetch('/.well-known/ai-catalog.json')).headers.get('content-type')).toBe('application/json; charset=utf-8');
    const res = await server.fetch('/.well-known/ai-catalog.json', { headers: { Accept: 'application/ai-catalog+json' } });
    expect(res.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(await json(res)).toEqual(document);
  });
});
