// Guarantees what an agent arriving at a page finds: the Agent Skills discovery index (0.2.0) listing every skill with
// stored files, each SKILL.md served with the bytes its sha256 digest names; Link headers on pages and the API root
// naming the API catalog, the OpenAPI document, the MCP server card and the agent card (each of which resolves); a
// Markdown rendering of a listing page for Accept: text/markdown; rel="ard" on pages; robots.txt naming the sitemap.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_SKILLS_SCHEMA } from '../../src/domain/agents/skill-files.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

interface IndexEntry {
  name: string;
  type: string;
  description: string;
  url: string;
  digest: string;
}
interface ListingLite {
  id: string;
  slug: string;
  name: string;
  installs: number;
  files: string[];
  metrics: { installs: string };
}

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');
const local = (url: string) => url.replace(TEST_BASE_URL, '');

async function skillsWithFiles(): Promise<ListingLite[]> {
  const found: ListingLite[] = [];
  let next: string | null = '/api/v1/listings?type=skill&limit=2000';
  while (next) {
    const page: { items: ListingLite[]; next: string | null } = await json(await server.fetch(next));
    found.push(...page.items.filter((l) => l.files.length > 0));
    next = page.next ? local(page.next) : null;
  }
  return found;
}

describe('/.well-known/agent-skills/index.json (Agent Skills discovery 0.2.0)', () => {
  let index: { $schema: string; skills: IndexEntry[] };
  beforeAll(async () => {
    const res = await server.fetch('/.well-known/agent-skills/index.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    index = await json(res);
  });

  it('lists exactly the skills whose files are stored, with name, type, description, url and digest', async () => {
    expect(index.$schema).toBe(AGENT_SKILLS_SCHEMA);
    const stored = await skillsWithFiles();
    expect(stored.length).toBeGreaterThan(10);
    expect(index.skills.map((s) => s.name).sort()).toEqual(stored.map((l) => l.slug).sort());
    const names = new Set<string>();
    for (const skill of index.skills) {
      expect(skill.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(skill.name.length).toBeLessThanOrEqual(64);
      expect(names.has(skill.name)).toBe(false);
      names.add(skill.name);
      expect(skill.type).toBe('skill-md');
      expect(skill.description.length).toBeGreaterThan(0);
      expect(skill.description.length).toBeLessThanOrEqual(1024);
      expect(skill.url).toBe(`${TEST_BASE_URL}/.well-known/agent-skills/${skill.name}/SKILL.md`);
      expect(skill.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('every url serves the SKILL.md whose SHA-256 is the digest, equal to the stored file', async () => {
    for (const skill of index.skills.slice(0, 40)) {
      const res = await server.fetch(local(skill.url));
      expect(res.status, skill.url).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
      const bytes = await res.arrayBuffer();
      expect(`sha256:${sha256(bytes)}`, skill.name).toBe(skill.digest);
      const files = await json<Array<{ path: string; content: string }>>(await server.fetch(`/api/v1/listings/${skill.name}/files`));
      expect(Buffer.from(bytes).toString('utf8')).toBe(files[0]!.content);
    }
  });

  it('bundled files are served too (a nested path as one encoded segment); unknown ones are 404', async () => {
    const multi = (await skillsWithFiles()).find((l) => l.files.length > 1)!;
    expect(multi).toBeDefined();
    const files = await json<Array<{ path: string; content: string }>>(await server.fetch(`/api/v1/listings/${multi.slug}/files`));
    for (const file of files) {
      const res = await server.fetch(`/.well-known/agent-skills/${multi.slug}/${encodeURIComponent(file.path)}`);
      expect(res.status, file.path).toBe(200);
      expect(await res.text()).toBe(file.content);
    }
    expect((await server.fetch(`/.well-known/agent-skills/${multi.slug}/nope.md`)).status).toBe(404);
    expect((await server.fetch('/.well-known/agent-skills/no-such-skill/SKILL.md')).status).toBe(404);
  });
});

describe('Link headers on pages and the API root', () => {
  it.each(['/', '/api/v1', '/v1'])('%s names the API catalog, OpenAPI, MCP server card, agent card and ARD manifest, all of which resolve', async (path) => {
    const res = await server.fetch(path);
    expect(res.status).toBe(200);
    const link = res.headers.get('link') ?? '';
    const targets = new Map<string, string>();
    for (const match of link.matchAll(/<([^>]+)>;\s*rel="([^"]+)"(?:;\s*type="([^"]+)")?/g))
      targets.set(match[3] && match[2] === 'describedby' ? match[3] : match[2]!, match[1]!);
    expect(targets.get('api-catalog')).toBe(`${TEST_BASE_URL}/.well-known/api-catalog`);
    expect(targets.get('service-desc')).toBe(`${TEST_BASE_URL}/openapi.json`);
    expect(targets.get('application/mcp-server-card+json')).toBe(`${TEST_BASE_URL}/.well-known/mcp/server-card.json`);
    expect(targets.get('application/a2a-agent-card+json')).toBe(`${TEST_BASE_URL}/.well-known/agent-card.json`);
    expect(targets.get('ard')).toBe(`${TEST_BASE_URL}/.well-known/ard.json`);
    for (const url of targets.values()) expect((await server.fetch(local(url))).status, url).toBe(200);
  });

  it.each(['/types/skill/', '/docs/', 'a listing page'])('%s names the API catalog alone, whose linkset names the rest', async (name) => {
    const [first] = (await json<{ items: Array<{ slug: string }> }>(await server.fetch('/api/v1/listings?limit=1'))).items;
    const path = name === 'a listing page' ? `/listings/${first!.slug}/` : name;
    const res = await server.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe(`<${TEST_BASE_URL}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`);
    const linkset = await json<{ linkset: Array<Record<string, Array<{ href: string }>>> }>(await server.fetch('/.well-known/api-catalog'));
    const targets = linkset.linkset.flatMap((context) =>
      Object.values(context)
        .flat()
        .map((target) => (typeof target === 'object' ? target.href : undefined)),
    );
    expect(targets).toContain(`${TEST_BASE_URL}/openapi.json`);
  });

  it('answers and files outside pages carry none', async () => {
    for (const path of ['/api/v1/listings?limit=1', '/llms.txt', '/openapi.json']) expect((await server.fetch(path)).headers.get('link'), path).toBeNull();
  });

  it('pages carry <link rel="ard"> and <link rel="ai-catalog"> in their head', async () => {
    const html = await (await server.fetch('/', { headers: { Accept: 'text/html' } })).text();
    expect(html).toMatch(/<link rel="ard" type="application\/json" href="\/\.well-known\/ard\.json"/);
    expect(html).toMatch(/<link rel="ai-catalog" type="application\/json" href="\/\.well-known\/ai-catalog\.json"/);
  });
});

describe('Accept: text/markdown on a listing page', () => {
  it('answers a Markdown rendering with the figures, their provenance and the stored SKILL.md', async () => {
    const [skill] = (await skillsWithFiles()).slice(0, 1);
    const res = await server.fetch(`/listings/${skill!.slug}/`, { headers: { Accept: 'text/markdown' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('vary')).toMatch(/Accept/);
    const text = await res.text();
    const listing = await json<ListingLite & { description: string }>(await server.fetch(`/api/v1/listings/${skill!.slug}`));
    expect(text.startsWith(`# ${listing.name}\n`)).toBe(true);
    expect(text).toContain(`| Installs | ${listing.installs.toLocaleString('en-US')} (${listing.metrics.installs}) |`);
    expect(text).toContain(`\`${listing.id}\``);
    const files = await json<Array<{ content: string }>>(await server.fetch(`/api/v1/listings/${skill!.slug}/files`));
    expect(text).toContain(files[0]!.content.trim().split('\n').slice(-1)[0]);
    expect(text).toContain('## SKILL.md');
  });

  it('a browser (text/html first) still gets the HTML page, and an unknown slug stays a 404', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const res = await server.fetch('/listings/find-skills/', { headers: { Accept: browser } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    // The same URL answers Markdown by Accept: a cache must key the HTML on Accept too.
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    for (const path of ['/listings/find-skills', '/types/skill/']) {
      expect((await server.fetch(path, { headers: { Accept: browser } })).headers.get('vary'), path).toBe(
        path.startsWith('/listings/') ? 'Accept, Accept-Encoding' : 'Accept-Encoding',
      );
    }
    expect((await server.fetch('/listings/no-such-listing-here/', { headers: { Accept: 'text/markdown' } })).status).toBe(404);
  });
});

describe('/robots.txt', () => {
  it('names the sitemap index by its absolute URL', async () => {
    const text = await (await server.fetch('/robots.txt')).text();
    expect(text).toMatch(new RegExp(`^Sitemap: ${TEST_BASE_URL}/sitemap\\.xml$`, 'm'));
  });
});
