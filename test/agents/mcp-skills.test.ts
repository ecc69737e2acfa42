// Guarantees the MCP skills extension (SEP-2640) on the catalog MCP endpoint, driven by the official MCP SDK client:
// the io.modelcontextprotocol/skills capability, skills/list paging through every skill with stored files (and
// narrowed by query with the catalog keyword search), skills/get, skill:// resources whose SHA-256 digests match the
// bytes resources/read returns, skill://index.json, and load_skill unchanged.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { json, startServer, type TestServer } from '../support/server.ts';

const ResourceRef = z.strictObject({
  uri: z.string().startsWith('skill://'),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
});
const SkillEntry = z.strictObject({
  uri: z.string().regex(/^skill:\/\/[a-z0-9-]+(\/[a-z0-9-]+)?\/SKILL\.md$/),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(ResourceRef).min(1),
});
const ListResult = z.looseObject({ skills: z.array(SkillEntry), nextCursor: z.string().optional() });
const GetResult = z.looseObject({ skill: SkillEntry });
type Entry = z.infer<typeof SkillEntry>;

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startServer();
  client = new Client({ name: 'catalog-skills-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/.well-known/mcp`)));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

async function listAll(params: Record<string, unknown> = {}): Promise<{ skills: Entry[]; pages: number }> {
  const skills: Entry[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.request({ method: 'skills/list', params: { ...params, ...(cursor ? { cursor } : {}) } }, ListResult);
    skills.push(...page.skills);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  return { skills, pages };
}

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
const readText = async (uri: string) => {
  const result = await client.readResource({ uri });
  const [content] = result.contents as Array<{ uri: string; text: string; mimeType: string }>;
  expect(content!.uri).toBe(uri);
  return content!;
};

describe('the skills extension on /.well-known/mcp (official SDK client)', () => {
  it('declares io.modelcontextprotocol/skills among the capability extensions', () => {
    const capabilities = client.getServerCapabilities() as { extensions?: Record<string, unknown>; resources?: unknown };
    expect(capabilities.extensions?.['io.modelcontextprotocol/skills']).toEqual({});
    expect(capabilities.resources).toBeDefined();
  });

  it('skills/list pages through exactly the skills of the Agent Skills index, each path ending in its front-matter name', async () => {
    const { skills, pages } = await listAll();
    expect(pages).toBeGreaterThan(1);
    const index = await json<{ skills: Array<{ name: string }> }>(await server.fetch('/.well-known/agent-skills/index.json'));
    expect(skills).toHaveLength(index.skills.length);
    expect(new Set(skills.map((s) => s.uri)).size).toBe(skills.length);
    for (const skill of skills) {
      const segments = skill.uri.slice('skill://'.length).split('/');
      expect(segments.at(-2)).toBe(skill.frontmatter.name);
      expect(skill.resources[0]!.uri).toBe(skill.uri);
    }
  });

  it('every resource digest is the SHA-256 of what resources/read returns, equal to the stored file', async () => {
    const { skills } = await listAll({ limit: 200 });
    const multi = skills.filter((s) => s.resources.length > 1).slice(0, 3);
    expect(multi.length).toBeGreaterThan(0);
    for (const skill of [...skills.slice(0, 5), ...multi]) {
      for (const ref of skill.resources) {
        const content = await readText(ref.uri);
        expect(sha256(content.text), ref.uri).toBe(ref.digest);
        expect(Buffer.byteLength(content.text)).toBe(ref.size);
      }
      const slug = skill.uri.slice('skill://'.length).split('/')[0]!;
      const files = await json<Array<{ path: string; content: string }>>(await server.fetch(`/api/v1/listings/${slug}/files`));
      expect((await readText(skill.uri)).text).toBe(files[0]!.content);
      expect((await readText(skill.uri)).mimeType).toBe('text/markdown');
    }
  });

  it('query narrows the list to the keyword search results among the stored skills, in its order', async () => {
    const { skills } = await listAll({ query: 'pdf' });
    expect(skills.length).toBeGreaterThan(0);
    const api = await json<{ items: Array<{ slug: string; files: string[] }> }>(await server.fetch('/api/v1/listings?q=pdf&type=skill&limit=2000'));
    const expected = api.items.filter((l) => l.files.length > 0).map((l) => l.slug);
    expect(skills.map((s) => s.uri.slice('skill://'.length).split('/')[0])).toEqual(expected);
    expect((await listAll({ query: 'qqzzxxvvkkjj' })).skills).toEqual([]);
  });

  it('skills/get returns the entry skills/list gave; an unknown URI or a cursor of another query is -32602', async () => {
    const page = await client.request({ method: 'skills/list', params: { limit: 3 } }, ListResult);
    const got = await client.request({ method: 'skills/get', params: { uri: page.skills[1]!.uri } }, GetResult);
    expect(got.skill).toEqual(page.skills[1]);
    for (const [method, params] of [
      ['skills/get', { uri: 'skill://no-such-skill/SKILL.md' }],
      ['skills/get', { uri: page.skills[0]!.resources.at(-1)!.uri.replace(/SKILL\.md$/, 'nope.md') }],
      ['skills/list', { cursor: page.nextCursor, query: 'pdf' }],
    ] as const) {
      const error = await client.request({ method, params }, ListResult).catch((e: unknown) => e);
      expect(error, method).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
    }
    const missing = await client.readResource({ uri: 'skill://no-such-skill/SKILL.md' }).catch((e: unknown) => e);
    expect((missing as McpError).code).toBe(-32602);
  });

  it('skill://index.json is the Agent Skills index with skill:// URLs', async () => {
    const index = JSON.parse((await readText('skill://index.json')).text) as { $schema: string; skills: Array<{ name: string; type: string; url: string }> };
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    const { skills } = await listAll({ limit: 200 });
    expect(index.skills.map((s) => s.url)).toEqual(skills.map((s) => s.uri));
    expect(index.skills.every((s) => s.type === 'skill-md')).toBe(true);
  });

  it('load_skill keeps working, with the same files skills/list describes', async () => {
    const page = await client.request({ method: 'skills/list', params: { limit: 1 } }, ListResult);
    const slug = page.skills[0]!.uri.slice('skill://'.length).split('/')[0]!;
    const result = await client.callTool({ name: 'load_skill', arguments: { id: slug } });
    const structured = result.structuredContent as { listing: { slug: string }; files: Array<{ path: string; content: string }> };
    expect(structured.listing.slug).toBe(slug);
    expect(structured.files.map((f) => sha256(f.content))).toEqual(page.skills[0]!.resources.map((r) => r.digest));
  });
});
