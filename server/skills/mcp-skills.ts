// The MCP skills extension (SEP-2640, io.modelcontextprotocol/skills) on the catalog MCP server: skills/list (paged,
// narrowed by `query` through the catalog keyword search), skills/get by skill:// URI, and resources/read of every
// stored file under skill://{path}/{file}, each listed with its SHA-256 digest and size.
import { z } from 'zod';
import { listingQuery } from '../../src/domain/contract/listing-query.ts';
import { decodePageToken, encodePageToken } from '../../src/domain/contract/page-token.ts';
import { AGENT_SKILLS_SCHEMA, sha256Digest, skillUri } from '../../src/domain/agents/skill-files.ts';
import { RpcError, rpcMethod } from '../json-rpc/json-rpc.ts';
import { MCP_CACHE_TTL_MS, type McpCall, type McpExtension } from '../mcp/mcp-server.ts';
import type { Services } from '../services.ts';
import { readSkillFile, skillCatalog, type StoredSkill } from './skill-catalog.ts';

export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export const SKILL_INDEX_URI = 'skill://index.json';
export const SKILLS_PAGE = { default: 50, max: 200 } as const;

const Params = z.looseObject({ _meta: z.looseObject({}).optional() });

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

export function skillEntry(skill: StoredSkill): SkillEntry {
  return {
    uri: skillUri(skill.path),
    frontmatter: skill.frontmatter,
    resources: skill.files.map((file) => ({ uri: skillUri(skill.path, file.path), digest: sha256Digest(file.sha256), size: file.size })),
  };
}

function decodeCursor(raw: string, query: string): number {
  const token = decodePageToken(raw);
  if (!token || token.fingerprint !== query || !Number.isSafeInteger(token.offset))
    throw new RpcError('invalidParams', 'cursor is not a nextCursor this server issued for this query', { cursor: raw });
  return token.offset;
}

/** skill://{path}/{file}: the stored skill and file path a URI names, or undefined. */
function parseSkillUri(uri: string, skills: ReadonlyMap<string, StoredSkill>): { skill: StoredSkill; file: string } | undefined {
  if (!uri.startsWith('skill://')) return undefined;
  const rest = uri.slice('skill://'.length);
  // A path has one or two segments (slug, or slug/name); try the longer first.
  for (const cut of [rest.indexOf('/', rest.indexOf('/') + 1), rest.indexOf('/')]) {
    if (cut <= 0) continue;
    const skill = skills.get(rest.slice(0, cut));
    if (skill) return { skill, file: rest.slice(cut + 1) };
  }
  return undefined;
}

export function skillsExtension(services: Services): McpExtension {
  const list = rpcMethod(
    Params.extend({ cursor: z.string().optional(), query: z.string().max(256).optional(), limit: z.number().int().min(1).max(SKILLS_PAGE.max).optional() }),
    async (params) => {
      const snapshot = services.catalog.current;
      const catalog = skillCatalog(snapshot);
      const query = params.query?.trim() ?? '';
      let skills = catalog.skills;
      if (query) {
        // The catalog keyword search (every word must match), best first, kept to the skills with stored files.
        const stored = new Map(catalog.skills.map((skill) => [skill.doc, skill]));
        const docs = (await services.listingSearch(snapshot, listingQuery({ q: query, types: ['skill'], limit: snapshot.store.count }))).result.docs;
        skills = docs.flatMap((doc) => stored.get(doc) ?? []);
      }
      const offset = params.cursor ? decodeCursor(params.cursor, query) : 0;
      const limit = params.limit ?? SKILLS_PAGE.default;
      const page = skills.slice(offset, offset + limit);
      const result: Record<string, unknown> = { skills: page.map(skillEntry) };
      if (skills.length > offset + limit) result.nextCursor = encodePageToken(offset + limit, query);
      return result;
    },
  );
  const get = rpcMethod(Params.extend({ uri: z.string().min(1) }), (params) => {
    const found = parseSkillUri(params.uri, skillCatalog(services.catalog.current).byPath);
    if (!found || found.file !== 'SKILL.md') throw new RpcError('invalidParams', `Not a skill served by this server: ${params.uri}`, { uri: params.uri });
    return { skill: skillEntry(found.skill) };
  });

  return {
    id: SKILLS_EXTENSION_ID,
    settings: {},
    methods: {
      'skills/list': { rpc: list, ttlMs: MCP_CACHE_TTL_MS.resources },
      'skills/get': { rpc: get, ttlMs: MCP_CACHE_TTL_MS.resources },
    },
    read(uri: string, _call: McpCall) {
      if (!uri.startsWith('skill://')) return undefined;
      const snapshot = services.catalog.current;
      if (uri === SKILL_INDEX_URI) {
        // The Agent Skills discovery index with MCP URIs and no digests (integrity comes with the connection).
        const skills = skillCatalog(snapshot).skills.map((skill) => ({
          name: skill.frontmatter.name,
          type: 'skill-md',
          description: skill.frontmatter.description,
          url: skillUri(skill.path),
        }));
        return { uri, mimeType: 'application/json', text: JSON.stringify({ $schema: AGENT_SKILLS_SCHEMA, skills }) };
      }
      const found = parseSkillUri(uri, skillCatalog(snapshot).byPath);
      const file = found ? readSkillFile(snapshot, found.skill, found.file) : undefined;
      if (!found || !file) throw new RpcError('invalidParams', `Resource not found: ${uri}`, { uri });
      return { uri, mimeType: file.path === 'SKILL.md' ? 'text/markdown' : file.mediaType, text: file.content };
    },
  };
}
