// The agent surfaces (MCP, docs MCP, A2A, /ask) in one place: their paths, the protocol revisions they speak
// and the tools they offer. The shim's handlers and the build's discovery documents both read this module,
// so a tool or a version is listed once and the two can never disagree.
import { z } from 'zod';
import { BRAND, MCP_PACKAGE, TAGLINE } from '../brand.ts';
import { CATEGORY_SLUG_PATTERN } from '../listing/categories.ts';
import { LIMITS } from '../contract/limits.ts';
import { LISTING_TYPES } from '../listing/listing-types.ts';
import { SORTS } from '../listing/ranking.ts';
import { CatalogStatsSchema, ListingFileSchema, ListingSchema } from '../schemas.ts';

export const AGENT_PATHS = {
  /** The catalog MCP endpoint (Streamable HTTP); GET is its discovery document. */
  mcp: '/.well-known/mcp',
  /** Alias of the catalog MCP endpoint for POST; GET /mcp from a browser is the HTML MCP hub. */
  mcpAlias: '/mcp',
  mcpDiscoveryAliases: ['/.well-known/mcp.json', '/.well-known/mcp/product'],
  /** POST: the same JSON-RPC wrapped as text/event-stream; GET: the SSE handshake. */
  mcpSse: '/.well-known/mcp/sse',
  /** The docs MCP endpoint; GET is its discovery document. */
  mcpDocs: '/.well-known/mcp/docs',
  serverCard: '/.well-known/mcp/server-card.json',
  mcpServers: '/mcp.json',
  agentCard: '/.well-known/agent-card.json',
  a2a: '/a2a/v1',
  ask: '/ask',
  browse: '/browse',
  docsAgents: '/docs/agents/',
  docsMcp: '/docs/mcp/',
} as const;

export const MCP_SERVER_VERSION = '1.0.0';
export const MCP_SERVER_NAME = BRAND;
export const MCP_DOCS_SERVER_NAME = `${BRAND}-docs`;
/**
 * The stdio package (packages/catalog-mcp): it talks to the instance CATALOG_URL names, so every configuration we
 * publish sets it to our own origin. Until it is on npm it runs from a checkout of this repository (`fromCheckout`,
 * relative to the checkout).
 */
export const MCP_STDIO = {
  package: MCP_PACKAGE,
  command: 'npx',
  args: ['-y', MCP_PACKAGE],
  urlVariable: 'CATALOG_URL',
  fromCheckout: { command: 'node', args: ['packages/catalog-mcp/bin/catalog-mcp.js'] },
} as const;

/** Revisions with the initialize handshake, newest first; the first is the answer to an unknown request. */
export const MCP_SESSION_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** Revisions without initialize: every request carries its version in params._meta. */
export const MCP_STATELESS_VERSIONS = ['2026-07-28'] as const;
export const MCP_VERSIONS: readonly string[] = [...MCP_STATELESS_VERSIONS, ...MCP_SESSION_VERSIONS];
/** JSON-RPC batches exist only in 2025-03-26; 2025-06-18 removed them. */
export const MCP_BATCH_VERSIONS: readonly string[] = ['2025-03-26'];

export const A2A_PROTOCOL_VERSIONS = { current: '1.0', legacy: '0.3.0' } as const;

/** Results an agent surface returns at most, and by default (agents read every token, so the default is small). */
export const AGENT_RESULTS = { default: 10, max: 50 } as const;

const TypeInput = z.enum(LISTING_TYPES).describe(`one listing type: ${LISTING_TYPES.join(', ')}`);
const Limit = z.number().int().min(1).max(AGENT_RESULTS.max).default(AGENT_RESULTS.default);

/** A tool as both sides see it: the shim validates input with `input`, the discovery files publish both schemas. */
export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
}

function tool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  return spec;
}

export const SearchCatalogOutput = z.object({
  query: z.string(),
  items: z.array(ListingSchema),
  hasMore: z.boolean(),
  searchMode: z.string().describe('semantic, or keyword-fallback while embeddings are unavailable'),
});

export const CATALOG_TOOLS = {
  search_catalog: tool({
    name: 'search_catalog',
    title: 'Search the catalog',
    description:
      `Search ${BRAND} for agent skills, MCP servers, marketplaces, plugins and workflows. The query may be keywords ` +
      '("postgres") or a plain-language need ("something to let my agent query Postgres"). Returns the best matches, best first, ' +
      'one per copy group (a copy names its origin in copyOf; the origin counts its copies in copies).',
    input: z.object({
      query: z.string().min(1).max(LIMITS.semantic).describe('keywords or a natural-language description of what you need'),
      type: TypeInput.optional(),
      category: z.string().max(LIMITS.category).regex(CATEGORY_SLUG_PATTERN).optional().describe('category slug, e.g. databases'),
      limit: Limit,
    }),
    output: SearchCatalogOutput,
  }),
  load_skill: tool({
    name: 'load_skill',
    title: 'Load a listing with its files',
    description:
      'Load one listing by id (path-style type:owner/repo#slug or the plain slug) together with its stored files, ' +
      'SKILL.md first. Use it after search_catalog to read a skill before installing it.',
    input: z.object({ id: z.string().min(LIMITS.id.min).max(LIMITS.id.max).describe('listing id or slug from search_catalog') }),
    output: z.object({ listing: ListingSchema, files: z.array(ListingFileSchema) }),
  }),
  top_catalog: tool({
    name: 'top_catalog',
    title: 'Top listings',
    description:
      'The top listings of the catalog, optionally of one type. Skills, plugins and workflows rank by installs, MCP servers ' +
      'and marketplaces by repository stars; sort overrides it (installs, stars, trending, searchTrend). One listing per copy group.',
    input: z.object({
      type: TypeInput.optional(),
      sort: z.enum(SORTS).optional().describe('installs, stars, trending or searchTrend; default: the ranking metric of the type'),
      limit: Limit,
    }),
    output: z.object({ sort: z.enum(SORTS), type: z.enum(LISTING_TYPES).nullable(), items: z.array(ListingSchema), hasMore: z.boolean() }),
  }),
  get_catalog_stats: tool({
    name: 'get_catalog_stats',
    title: 'Catalog statistics',
    description: 'How many listings the catalog holds per type, summed installs and when it was last updated.',
    input: z.object({}),
    // A fresh object: the resource schema carries a registry id, which would turn the root into a $ref.
    output: z.object(CatalogStatsSchema.shape),
  }),
} as const;

export type CatalogToolName = keyof typeof CATALOG_TOOLS;

const DocSummary = z.object({ slug: z.string(), title: z.string(), description: z.string(), url: z.string() });

export const DOCS_TOOLS = {
  search_docs: tool({
    name: 'search_docs',
    title: 'Search the docs',
    description: `Search the ${BRAND} documentation pages (API, MCP, A2A, /ask, ranking) and return the best matching pages with a snippet.`,
    input: z.object({ query: z.string().min(1).max(LIMITS.semantic).describe('words to look for') }),
    output: z.object({ query: z.string(), results: z.array(DocSummary.extend({ snippet: z.string() })) }),
  }),
  get_doc: tool({
    name: 'get_doc',
    title: 'Read a docs page',
    description: 'One documentation page as Markdown, by slug (see list_docs).',
    input: z.object({ slug: z.string().min(1).max(128).describe('page slug, e.g. api') }),
    output: DocSummary.extend({ markdown: z.string() }),
  }),
  list_docs: tool({
    name: 'list_docs',
    title: 'List the docs pages',
    description: 'Every documentation page with its slug, title and description.',
    input: z.object({}),
    output: z.object({ docs: z.array(DocSummary) }),
  }),
} as const;

export type DocsToolName = keyof typeof DOCS_TOOLS;

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: true; destructiveHint: false; idempotentHint: true; openWorldHint: false };
}

/**
 * The JSON Schemas are generated from the zod schemas in input mode, so defaulted fields are optional and objects stay
 * open: a Listing field added later must not make a client's structuredContent validation fail.
 */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const descriptors = new WeakMap<ToolSpec, ToolDescriptor>();

/** The tools/list entry of a tool (also published in the discovery documents). */
export function toolDescriptor(spec: ToolSpec): ToolDescriptor {
  let descriptor = descriptors.get(spec);
  if (!descriptor) {
    descriptor = {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchema(spec.input),
      outputSchema: jsonSchema(spec.output),
      annotations: { title: spec.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
    descriptors.set(spec, descriptor);
  }
  return descriptor;
}

export const CATALOG_RESOURCE = {
  uri: `ui://${BRAND}/${BRAND}.html`,
  name: `${BRAND}.html`,
  title: `${BRAND}: top listings and statistics`,
  description: 'A small self-contained HTML view of the catalog: the top listings of each type and the catalog statistics.',
  mimeType: 'text/html;profile=mcp-app',
} as const;

export const MCP_INSTRUCTIONS =
  `${TAGLINE} Use search_catalog to find listings for a need, load_skill to read one listing with its files, ` +
  'top_catalog for the most popular listings of a type and get_catalog_stats for totals. Everything is read-only.';

export const MCP_DOCS_INSTRUCTIONS = `The ${BRAND} documentation: list_docs for the pages, search_docs to find a topic, get_doc to read a page as Markdown.`;
