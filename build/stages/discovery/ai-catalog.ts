// /.well-known/ai-catalog.json: the agentic resources of the site as an AI Catalog 1.0 document (the data model of
// Agentic Resource Discovery, github.com/Agent-Card/ai-catalog): the MCP server card, the A2A agent card, the
// `catalog` agent skill and the RFC 9727 API catalog, each a typed entry pointing at its artifact. The skill's
// SKILL.md (Agent Skills format: YAML front matter, then instructions) is generated here too.
import { AGENT_PATHS, CATALOG_TOOLS } from '../../../src/domain/agents/agent-surfaces.ts';
import { ARD_PATHS, ARD_SPEC, registryEntry } from '../../../src/domain/agents/ard.ts';
import { BRAND, MCP_PACKAGE, TAGLINE } from '../../../src/domain/brand.ts';
import { LIMITS } from '../../../src/domain/contract/limits.ts';
import { LISTING_TYPES, RANKING_METRIC } from '../../../src/domain/listing/listing-types.ts';
import { SORTS } from '../../../src/domain/listing/ranking.ts';
import { SITE_PATHS } from '../../../src/domain/site-paths.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';
import { EXTRA_PATHS, MEDIA_TYPES, operationPath, publicHost } from './site-links.ts';

export const AI_CATALOG_SPEC = { name: 'AI Catalog', version: '1.0', url: 'https://github.com/Agent-Card/ai-catalog' } as const;
export const AI_CATALOG_TYPE = 'application/ai-catalog+json';

/** Media types of AI Catalog entries (its "known types"). */
export const ENTRY_TYPES = {
  mcpServerCard: 'application/mcp-server-card+json',
  a2aAgentCard: 'application/a2a-agent-card+json',
  skillMarkdown: 'application/agent-skills+md',
  apiCatalog: 'application/linkset+json',
} as const;

export const SKILL_NAME = BRAND;
const SKILL_DESCRIPTION =
  `Find agent skills, MCP servers, marketplaces, plugins and workflows in ${BRAND}, an independent read-only directory, over plain HTTP ` +
  'with no key. Use when a task needs a tool, MCP server or skill that is not installed, or to compare options by installs or stars.';

export function aiCatalog(baseUrl: string): Record<string, unknown> {
  const host = publicHost(baseUrl);
  const urn = (namespace: string, name: string) => `urn:air:${host}:${namespace}:${name}`;
  const tags = ['catalog', 'directory', 'mcp', 'agent-skills', 'search'];
  return {
    specVersion: AI_CATALOG_SPEC.version,
    host: { displayName: BRAND, identifier: host, documentationUrl: baseUrl + AGENT_PATHS.docsAgents },
    // Entries whose artifact names and describes itself (the two cards) carry no displayName or description,
    // as the AI Catalog spec asks, so the two can never drift apart.
    entries: [
      { identifier: urn('mcp', BRAND), type: ENTRY_TYPES.mcpServerCard, url: baseUrl + AGENT_PATHS.serverCard, tags },
      { identifier: urn('a2a', BRAND), type: ENTRY_TYPES.a2aAgentCard, url: baseUrl + AGENT_PATHS.agentCard, tags },
      {
        identifier: urn('skill', SKILL_NAME),
        displayName: `${BRAND} skill`,
        description: SKILL_DESCRIPTION,
        type: ENTRY_TYPES.skillMarkdown,
        url: baseUrl + EXTRA_PATHS.catalogSkill,
        tags,
      },
      {
        identifier: urn('api', BRAND),
        displayName: `${BRAND} API catalog`,
        description: `RFC 9727 linkset of the ${BRAND} JSON API, its OpenAPI document and the agent endpoints.`,
        type: ENTRY_TYPES.apiCatalog,
        url: baseUrl + operationPath('getApiCatalog'),
        tags: ['api', 'openapi'],
      },
      // The catalog is also an ARD Agent Registry (application/ai-registry+json): clients find its search API here.
      registryEntry(baseUrl),
    ],
    extensions: {
      specification: AI_CATALOG_SPEC,
      discovery: 'Agentic Resource Discovery (ARD): /.well-known/ai-catalog.json',
      ard: { ...ARD_SPEC, manifest: baseUrl + ARD_PATHS.manifest, registry: baseUrl + ARD_PATHS.search.replace('/search', '') },
    },
  };
}

/**
 * ARD's manifest (/.well-known/ard.json): the same entries, in the stricter shape of ARD's schema, which requires a
 * displayName on every entry (§4.2) and allows no members beyond specVersion, host and entries.
 */
export function ardManifest(baseUrl: string): Record<string, unknown> {
  const { specVersion, host, entries } = aiCatalog(baseUrl) as { specVersion: string; host: unknown; entries: Array<Record<string, unknown>> };
  const names: Record<string, string> = { [ENTRY_TYPES.mcpServerCard]: `${BRAND} MCP server`, [ENTRY_TYPES.a2aAgentCard]: `${BRAND} A2A agent` };
  return { specVersion, host, entries: entries.map((entry) => ({ displayName: names[entry.type as string], ...entry })) };
}

export function catalogSkill(baseUrl: string): string {
  const url = (path: string) => baseUrl + path;
  const listings = url(operationPath('searchListings'));
  const one = url(operationPath('getListing', { id: 'SLUG' })).replace('SLUG', '{slug}');
  return `---
name: ${SKILL_NAME}
description: ${SKILL_DESCRIPTION}
---

# Using ${BRAND}

${BRAND} (${baseUrl}) is ${TAGLINE.charAt(0).toLowerCase()}${TAGLINE.slice(1)} Everything is read-only and free: send no API
key, no cookie and no \`Authorization\` header.

## Search

\`GET ${listings}?q=postgres&limit=10\` answers \`{ items, limit, offset, hasMore, next, pageToken, cursor }\`.

| parameter | meaning |
|---|---|
| \`q\` | keywords matched against name, description, repo and author (max ${LIMITS.q} characters) |
| \`semantic\` | a need in plain words (max ${LIMITS.semantic}); falls back to keywords when embeddings are off (header \`Search-Mode\`) |
| \`type\` / \`types\` | ${LISTING_TYPES.map((t) => `\`${t}\``).join(', ')} (\`types\` is comma-separated) |
| \`category\` | a category slug from \`${url(operationPath('getCategories'))}\` |
| \`owner\` | a repository owner or author |
| \`sort\` | ${SORTS.map((s) => `\`${s}\``).join(', ')}; default installs, ties by id |
| \`limit\` | ${LIMITS.pageSize.min} to ${LIMITS.pageSize.max}, default ${LIMITS.pageSize.default}; always pass it |
| \`cursor\` | the \`cursor\` of the previous page (or follow \`next\`) |

## Ids

A listing has a \`slug\` and a path-style \`id\` \`{type}:{owner}/{repo}#{slug}\`; both resolve:
\`GET ${one}\` (URL-encode a path-style id). \`GET .../{id}/files\` returns its stored files, SKILL.md first (\`[]\` when
none are stored). \`POST ${url(operationPath('batchListings'))}\` with \`{"ids": [...]}\` resolves up to ${LIMITS.batchIds} ids at once
and lists the ones that did not resolve in \`notFound\`.

## Ask in plain words

\`GET ${url(AGENT_PATHS.ask)}?q=something+to+let+my+agent+query+Postgres\` answers a schema.org \`ItemList\`; send
\`Accept: text/event-stream\` (or \`stream=1\`) for server-sent events \`start\`, \`item\`, \`complete\`. \`POST\` takes
\`{"query": "..."}\`. An \`Idempotency-Key\` header (${LIMITS.idempotencyKey.min}-${LIMITS.idempotencyKey.max} characters) makes a retry replay the first answer.

## MCP and A2A

- MCP (Streamable HTTP): \`POST ${url(AGENT_PATHS.mcp)}\`, tools ${Object.keys(CATALOG_TOOLS)
    .map((t) => `\`${t}\``)
    .join(', ')}; or run \`npx -y ${MCP_PACKAGE}\` (stdio). Server card: ${url(AGENT_PATHS.serverCard)}.
- A2A: \`POST ${url(AGENT_PATHS.a2a)}\` (\`message/send\`); agent card: ${url(AGENT_PATHS.agentCard)}.

## Reading the figures

${LISTING_TYPES.map((t) => `\`${t}\` ranks by ${RANKING_METRIC[t]}`).join(', ')}. Each listing's \`metrics\` says per figure whether it is
\`real\` (measured by a public source) or \`synthetic\` (generated to fill a gap); \`metricsSource\` says it for the figure
the listing is ranked by. Do not present a synthetic figure as measured. Install lines of the form \`npx skills add\`
belong to a third-party installer, not to ${BRAND}.

## Limits and errors

${LIMITS.rateLimit.max} requests per ${LIMITS.rateLimit.windowSeconds} seconds per client; a 429 carries \`Retry-After\`. Errors are JSON
\`{ code, message, resolution }\`: read \`resolution\` for the fix.

## More

- OpenAPI: ${url(operationPath('getOpenApiJson'))}
- Docs: ${url(SITE_PATHS.doc('api'))}, ${url(SITE_PATHS.doc('agents'))}
- Map of the site: ${url(operationPath('getLlmsTxt'))}
`;
}

export function aiCatalogFiles(ctx: Pick<StageContext, 'baseUrl'>): GeneratedFile[] {
  return [
    {
      path: operationPath('getAiCatalog'),
      contentType: MEDIA_TYPES.json,
      alternates: [{ contentType: AI_CATALOG_TYPE }],
      body: `${JSON.stringify(aiCatalog(ctx.baseUrl), null, 2)}\n`,
    },
    { path: EXTRA_PATHS.catalogSkill, contentType: MEDIA_TYPES.markdown, body: catalogSkill(ctx.baseUrl) },
    {
      path: ARD_PATHS.manifest,
      contentType: MEDIA_TYPES.json,
      alternates: [{ contentType: AI_CATALOG_TYPE }],
      body: `${JSON.stringify(ardManifest(ctx.baseUrl), null, 2)}\n`,
    },
  ];
}
