// Every operation of the interface (SERVICE.md section 4): method, paths (with aliases), parameters, bodies,
// responses. The OpenAPI document is generated from this table and the zod schemas; the contract tests check
// that every operation is served (by a route or a built file) and that every route is listed here.
import { z } from 'zod';
import { LIMITS } from './limits.ts';
import { LISTING_QUERY_PARAMS } from './listing-query.ts';
import {
  BatchRequestSchema,
  BatchResultSchema,
  CatalogStatsSchema,
  CategorySchema,
  ErrorSchema,
  ListingFileSchema,
  ListingPageSchema,
  ListingSchema,
  SandboxSchema,
  SiteMetaSchema,
  StageSchema,
  VersioningPolicySchema,
} from '../schemas.ts';
import { ARD_OPERATIONS, OWNER_OPERATIONS, SKILL_OPERATIONS, STANDARD_OPERATIONS } from './standard-operations.ts';
import { defineOperations, headerParam, pathParam, type Operation, type ResponseDoc, type RouteOperationOf, type Schema } from './operation-types.ts';
import { apiAliases } from '../brand.ts';
import { SEARCH_CORRECTED_HEADER, SEARCH_MATCH_HEADER, SEARCH_MODE_HEADER } from './response-headers.ts';
import { ASK_BODY, ASK_PARAMS } from '../agents/ask-input.ts';

export type { Operation, ResponseDoc, Schema } from './operation-types.ts';

const json = (schema: Schema): Record<string, Schema> => ({ 'application/json': schema });
const text = (type: string): Record<string, Schema> => ({ [type]: { json: { type: 'string' } } });
const prefixed = apiAliases;
const ID_PARAM = [pathParam('id', 'A plain slug or a path-style id {type}:{owner}/{repo}#{slug}, URL-encoded.', LIMITS.id.max)];
/** A listing that left the catalog while its install history is still kept: code gone, the last day it was listed. */
const REMOVED: ResponseDoc = {
  description: 'The listing was removed from the catalog (the message gives the last day it was listed)',
  content: json(ErrorSchema),
};
const IDEMPOTENCY_HEADER = headerParam('Idempotency-Key', 'Replays the stored response for an identical body within 5 minutes.', LIMITS.idempotencyKey);

const JSON_RPC_REQUEST = {
  json: {
    type: 'object',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'], description: 'absent for a notification' },
      method: { type: 'string' },
      params: { type: 'object' },
    },
  },
} as const;
const JSON_RPC_RESPONSE = {
  json: {
    type: 'object',
    required: ['jsonrpc', 'id'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      result: { type: 'object' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'integer',
            description:
              '-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params (also an unknown tool), -32603 internal error; MCP: -32020 protocol version header mismatch, -32022 unsupported protocol version; A2A: -32001 task not found, -32003 push notifications not supported, -32004 unsupported operation (streaming)',
          },
          message: { type: 'string' },
          data: {},
        },
      },
    },
  },
} as const;
const ITEM_LIST = {
  json: {
    type: 'object',
    description: 'schema.org ItemList of matching listings',
    required: ['@context', '@type', 'itemListElement'],
    properties: {
      '@context': { const: 'https://schema.org' },
      '@type': { const: 'ItemList' },
      itemListElement: {
        type: 'array',
        items: {
          type: 'object',
          required: ['@type', 'position', 'item'],
          properties: { '@type': { const: 'ListItem' }, position: { type: 'integer' }, item: { $ref: '#/components/schemas/Listing' } },
        },
      },
    },
  },
} as const;
const SSE = { json: { type: 'string', description: 'text/event-stream' } } as const;
const ANY_JSON = { json: { type: 'object' } } as const;
const NOT_OFFERED = { json: { $ref: '#/components/schemas/Error' } } as const;

const ok = (description: string, content?: Record<string, Schema | undefined>): ResponseDoc => ({ description, content });
const staticFile = <const Id extends string>(
  id: Id,
  paths: string[],
  summary: string,
  contentType: string,
  schema: Schema = { json: { type: contentType.includes('json') ? 'object' : 'string' } },
): Operation<Id> => ({
  id,
  method: 'GET',
  paths,
  summary,
  tag: 'discovery',
  servedBy: 'static',
  responses: { 200: ok(summary, { [contentType]: schema }) },
});

const HEALTH = {
  json: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { enum: ['ok', 'ready', 'degraded', 'not_ready'] },
      build: { type: 'string', description: 'Id of the build being served' },
      checks: {
        type: 'object',
        description:
          'artifacts: the build is loaded and has listings; semantic: loading, ready or unavailable (search falls back to keywords); redis: up, down or unconfigured',
        additionalProperties: { type: 'object' },
      },
    },
  },
} as const;

/** Health, readiness and metrics: for load balancers, orchestrators and Prometheus. */
const OPERATIONS_ROUTES = defineOperations([
  {
    id: 'getHealth',
    method: 'GET',
    paths: ['/healthz'],
    summary: 'Liveness: the process answers (never touches the catalog or Redis)',
    tag: 'operations',
    servedBy: 'route',
    responses: { 200: ok('Alive', json(HEALTH)) },
  },
  {
    id: 'getReadiness',
    method: 'GET',
    paths: ['/readyz'],
    summary: 'Readiness: the build is loaded; reports the semantic index and Redis',
    description:
      '200 ready when the build is loaded and every configured dependency is up; 200 degraded while Redis is configured but unreachable ' +
      '(the shim keeps serving with per-process rate limits, so a front must not take every shim out of rotation for it) or while ' +
      'the semantic index is unavailable (semantic search falls back to keywords); 503 not_ready when no build with listings is loaded.',
    tag: 'operations',
    servedBy: 'route',
    responses: { 200: ok('Ready or degraded', json(HEALTH)), 503: ok('Not ready', json(HEALTH)) },
  },
  {
    id: 'getMetrics',
    method: 'GET',
    paths: ['/metrics'],
    summary: 'Prometheus metrics (text exposition format): requests and latency by route, search cache and modes, rate-limit decisions, Redis state',
    description: 'Needs a staff Bearer JWT unless METRICS_PUBLIC=true;',
    tag: 'operations',
    servedBy: 'route',
    security: 'staffBearer',
    cors: 'closed',
    responses: { 200: ok('Metrics', text('text/plain; version=0.0.4')) },
  },
]);

const OPERATION_TABLE = defineOperations([
  {
    id: 'searchListings',
    method: 'GET',
    paths: ['/api/v1/listings', '/v1/listings', '/sandbox/listings'],
    summary: 'Search listings (paginated envelope)',
    tag: 'catalog',
    servedBy: 'route',
    query: LISTING_QUERY_PARAMS,
    responses: {
      200: { description: 'A page of listings', content: json(ListingPageSchema), headers: [SEARCH_MODE_HEADER, SEARCH_MATCH_HEADER, SEARCH_CORRECTED_HEADER] },
    },
  },
  {
    id: 'searchListingsRaw',
    method: 'GET',
    paths: ['/api/upstream/listings'],
    summary: 'Search listings (raw array, unversioned alias)',
    tag: 'catalog',
    servedBy: 'route',
    query: LISTING_QUERY_PARAMS.filter((p) => !p.v1Only),
    responses: {
      200: { description: 'Listings', content: json(z.array(ListingSchema)), headers: [SEARCH_MODE_HEADER, SEARCH_MATCH_HEADER, SEARCH_CORRECTED_HEADER] },
    },
  },
  {
    id: 'getListing',
    method: 'GET',
    paths: prefixed('/listings/{id}'),
    summary: 'One listing by slug or path-style id',
    tag: 'catalog',
    servedBy: 'route',
    pathParams: ID_PARAM,
    responses: { 200: ok('The listing', json(ListingSchema)), 404: ok('No listing has this id', json(ErrorSchema)), 410: REMOVED },
  },
  {
    id: 'getListingFiles',
    method: 'GET',
    paths: prefixed('/listings/{id}/files'),
    summary: 'Stored files of a listing, SKILL.md first ([] when none are stored)',
    tag: 'catalog',
    servedBy: 'route',
    pathParams: ID_PARAM,
    responses: { 200: ok('The files', json(z.array(ListingFileSchema))), 404: ok('No listing has this id', json(ErrorSchema)), 410: REMOVED },
  },
  {
    id: 'batchListings',
    method: 'POST',
    paths: prefixed('/listings/batch'),
    summary: `Up to ${LIMITS.batchIds} listings by id in one call`,
    tag: 'catalog',
    servedBy: 'route',
    body: { schema: BatchRequestSchema, required: true },
    responses: {
      200: ok('Resolved listings and the ids that did not resolve', json(BatchResultSchema)),
      413: ok('Body too large', json(ErrorSchema)),
      415: ok('Body is not JSON', json(ErrorSchema)),
    },
  },
  {
    id: 'getCatalogStats',
    method: 'GET',
    paths: prefixed('/catalog/stats'),
    summary: 'Counts per type and summed installs',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Stats', json(CatalogStatsSchema)) },
  },
  {
    id: 'getMeta',
    method: 'GET',
    paths: prefixed('/meta'),
    summary: 'Brand, tagline, disclaimer, last update',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Site meta', json(SiteMetaSchema)) },
  },
  {
    id: 'getStages',
    method: 'GET',
    paths: prefixed('/stages'),
    summary: 'Journey stages in order',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Stages', json(z.array(StageSchema))) },
  },
  {
    id: 'getCategories',
    method: 'GET',
    paths: prefixed('/categories'),
    summary: 'Categories per type',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Categories', json(z.array(CategorySchema))) },
  },
  {
    id: 'getVersioningPolicy',
    method: 'GET',
    paths: ['/api/v1', '/v1'],
    summary: 'Versioning policy',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Policy', json(VersioningPolicySchema)) },
  },
  {
    id: 'getSandbox',
    method: 'GET',
    paths: ['/sandbox'],
    summary: 'Read-only sandbox descriptor',
    tag: 'catalog',
    servedBy: 'route',
    responses: { 200: ok('Sandbox', json(SandboxSchema)) },
  },

  staticFile('getOpenApiJson', ['/openapi.json'], 'This OpenAPI 3.1 document', 'application/json'),
  staticFile('getOpenApiYaml', ['/openapi.yaml', '/api/openapi.yaml'], 'This OpenAPI document as YAML', 'application/yaml'),
  staticFile('getLlmsTxt', ['/llms.txt'], 'Markdown map of the site, regenerated by every build', 'text/plain'),
  staticFile('getLlmsFullTxt', ['/llms-full.txt'], 'llms.txt plus methodology and comparison shortlists', 'text/plain'),
  staticFile('getSitemap', ['/sitemap.xml'], 'Sitemap index of shards', 'application/xml'),
  staticFile('getApiCatalog', ['/.well-known/api-catalog'], 'RFC 9727 API catalog (linkset)', 'application/linkset+json'),
  staticFile('getAiCatalog', ['/.well-known/ai-catalog.json'], 'Agentic resource catalog', 'application/json'),
  staticFile('getMcpServerCard', ['/.well-known/mcp/server-card.json'], 'MCP server card', 'application/json'),
  staticFile('getMcpDiscoveryAliases', ['/.well-known/mcp.json', '/.well-known/mcp/product'], 'MCP discovery metadata', 'application/json'),
  ...(
    [
      ['getMcpDiscovery', '/.well-known/mcp', 'MCP discovery metadata', 'application/json'],
      ['getMcpDocsDiscovery', '/.well-known/mcp/docs', 'Discovery of the docs MCP surface', 'application/json'],
      ['getMcpHub', '/mcp', 'The MCP-servers hub page (HTML, for browsers)', 'text/html'],
    ] as const
  ).map(([id, path, summary, type]): RouteOperationOf<typeof id> => ({
    id,
    method: 'GET',
    paths: [path],
    summary,
    description:
      'A GET that accepts only text/event-stream is an MCP client asking for a standalone stream, which this stateless server does not offer: 405, as the MCP transport specification says. Any other GET is the document.',
    tag: 'discovery',
    servedBy: 'route',
    responses: { 200: ok(summary, { [type]: { json: { type: type === 'text/html' ? 'string' : 'object' } } }) },
  })),
  staticFile('getAgentCard', ['/.well-known/agent-card.json'], 'A2A agent card', 'application/json'),
  staticFile('getMcpJson', ['/mcp.json'], 'mcpServers map (stdio command and Streamable HTTP remote)', 'application/json'),
  staticFile('getDataFeed', ['/feeds/listings.json'], 'schema.org DataFeed of current top listings', 'application/ld+json'),
  staticFile('getPricing', ['/pricing.md'], 'Pricing: free', 'text/markdown'),
  staticFile('getAuthRecipe', ['/auth.md'], 'Authentication recipe', 'text/markdown'),
  staticFile('getShardManifest', ['/shards/manifest.json'], 'Manifest of the JSON shards (counts and SHA-256 checksums)', 'application/json'),
  staticFile(
    'getShardExport',
    ['/shards/export/listings.jsonl'],
    'The snapshot as this build ingested it, in the export format (what a mirror builds from)',
    'application/jsonl',
  ),
  staticFile(
    'getChangeLog',
    ['/shards/changes.json'],
    'Listings added, changed and removed since the previous build, with record digests and the new records',
    'application/json',
  ),
  staticFile(
    'getRemovedListings',
    ['/shards/gone.json'],
    'Listings removed from the catalog whose history is still kept (they answer 410): id → the last day listed',
    'application/json',
  ),
  staticFile('getRobotsTxt', ['/robots.txt'], 'Crawling rules; names the sitemap index', 'text/plain'),

  {
    id: 'browsePage',
    method: 'GET',
    paths: ['/browse'],
    summary: 'Search page for people (HTML, rendered on the server; works without JavaScript)',
    description:
      'The same search as GET /api/v1/listings (20 results a page, next page by cursor), as an HTML page with filters. ' +
      'An invalid parameter is shown on the page with status 400. Every other page of the site is a static file (see /sitemap.xml).',
    tag: 'catalog',
    servedBy: 'route',
    query: LISTING_QUERY_PARAMS.filter((p) => ['q', 'type', 'category', 'sort', 'cursor'].includes(p.name)),
    responses: {
      200: ok('The search page with its results', text('text/html')),
      400: ok('The search page showing which parameter is invalid', text('text/html')),
    },
  },
  {
    id: 'loginPage',
    method: 'GET',
    paths: ['/login'],
    summary: 'Staff sign-in page (HTML): there are no public accounts; staff routes take a Bearer JWT',
    tag: 'auth',
    servedBy: 'static',
    responses: { 200: ok('The sign-in page', text('text/html')) },
  },

  {
    id: 'mcpSseHandshake',
    method: 'GET',
    paths: ['/.well-known/mcp/sse'],
    summary: 'SSE handshake of the MCP endpoint',
    tag: 'agents',
    servedBy: 'route',
    responses: { 200: ok('Event stream', { 'text/event-stream': SSE }) },
  },
  {
    id: 'mcpCatalog',
    method: 'POST',
    paths: ['/.well-known/mcp'],
    summary: 'Catalog MCP (JSON-RPC): initialize, ping, tools/list, tools/call, resources/list, resources/read',
    tag: 'agents',
    servedBy: 'route',
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: JSON_RPC_REQUEST, required: true },
    responses: { 200: ok('JSON-RPC response', json(JSON_RPC_RESPONSE)), 202: ok('Notification accepted (no body)') },
  },
  {
    id: 'mcpRoot',
    method: 'POST',
    paths: ['/mcp'],
    summary: 'MCP (JSON-RPC): initialize, tools/list, resources/list, resources/read (and the rest of the catalog MCP methods)',
    tag: 'agents',
    servedBy: 'route',
    body: { schema: JSON_RPC_REQUEST, required: true },
    responses: { 200: ok('JSON-RPC response', json(JSON_RPC_RESPONSE)), 202: ok('Notification accepted (no body)') },
  },
  {
    id: 'mcpSse',
    method: 'POST',
    paths: ['/.well-known/mcp/sse'],
    summary: 'The catalog MCP JSON-RPC, answered as text/event-stream',
    tag: 'agents',
    servedBy: 'route',
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: JSON_RPC_REQUEST, required: true },
    responses: { 200: ok('Event stream carrying the JSON-RPC response', { 'text/event-stream': SSE }), 202: ok('Notification accepted (no body)') },
  },
  {
    id: 'mcpDocs',
    method: 'POST',
    paths: ['/.well-known/mcp/docs'],
    summary: 'Docs MCP (JSON-RPC): search_docs, get_doc, list_docs',
    tag: 'agents',
    servedBy: 'route',
    body: { schema: JSON_RPC_REQUEST, required: true },
    responses: { 200: ok('JSON-RPC response', json(JSON_RPC_RESPONSE)), 202: ok('Notification accepted (no body)') },
  },
  {
    id: 'a2aSendMessage',
    method: 'POST',
    paths: ['/a2a/v1'],
    summary: 'A2A JSON-RPC message/send: searches the public catalog (no streaming)',
    tag: 'agents',
    servedBy: 'route',
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: JSON_RPC_REQUEST, required: true },
    responses: { 200: ok('JSON-RPC response (Message with a data part of listings)', json(JSON_RPC_RESPONSE)) },
  },
  {
    id: 'askGet',
    method: 'GET',
    paths: ['/ask'],
    summary: 'Natural-language search: schema.org ItemList, or SSE (start, item, complete)',
    tag: 'agents',
    servedBy: 'route',
    query: ASK_PARAMS,
    responses: {
      200: ok('Matching listings', { 'application/json': ITEM_LIST, 'application/ld+json': ITEM_LIST, 'text/event-stream': SSE }),
      302: ok('A browser navigation is sent to /browse with the query'),
    },
  },
  {
    id: 'askPost',
    method: 'POST',
    paths: ['/ask'],
    summary: 'Natural-language search with a JSON body',
    tag: 'agents',
    servedBy: 'route',
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: ASK_BODY, required: false },
    responses: {
      200: ok('Matching listings', { 'application/json': ITEM_LIST, 'application/ld+json': ITEM_LIST, 'text/event-stream': SSE }),
      409: ok('A request with this Idempotency-Key is still running', json(ErrorSchema)),
      422: ok('This Idempotency-Key was used with a different body', json(ErrorSchema)),
    },
  },

  {
    id: 'getStaffIdentity',
    method: 'GET',
    paths: prefixed('/auth/me'),
    summary: 'Staff identity probe',
    tag: 'auth',
    servedBy: 'route',
    security: 'staffBearer',
    cors: 'closed',
    responses: { 200: ok('The staff profile', json({ json: { $ref: '#/components/schemas/StaffProfile' } })) },
  },
  ...(['/oauth/resource', '/agent/auth'] as const).map((path): RouteOperationOf<'oauthResourceProbe' | 'agentAuthProbe'> => ({
    id: path === '/oauth/resource' ? 'oauthResourceProbe' : 'agentAuthProbe',
    method: 'GET',
    paths: [path],
    summary: 'Always 401 with a Bearer challenge naming the protected-resource metadata',
    tag: 'auth',
    servedBy: 'route',
    cors: 'closed',
    responses: { 401: ok('Bearer challenge', json(ErrorSchema)) },
  })),
  {
    id: 'getProtectedResourceMetadata',
    method: 'GET',
    paths: ['/.well-known/oauth-protected-resource'],
    summary: 'OAuth protected-resource metadata',
    tag: 'auth',
    servedBy: 'route',
    responses: { 200: ok('Metadata', json(ANY_JSON)) },
  },
  {
    id: 'getAuthorizationServerMetadata',
    method: 'GET',
    paths: ['/.well-known/oauth-authorization-server'],
    summary: 'RFC 8414 metadata (no grants offered)',
    tag: 'auth',
    servedBy: 'route',
    responses: { 200: ok('Metadata', json(ANY_JSON)) },
  },
  ...(['authorize', 'token', 'register'] as const).flatMap((name): Array<RouteOperationOf<`oauth_${typeof name}_${'get' | 'post'}`>> => [
    {
      id: `oauth_${name}_get` as const,
      method: 'GET',
      paths: [`/oauth/${name}`],
      summary: 'States that no authorization server is offered',
      tag: 'auth',
      servedBy: 'route',
      cors: 'closed',
      responses: { 200: ok('authorization_server_not_offered', json(NOT_OFFERED)) },
    },
    {
      id: `oauth_${name}_post` as const,
      method: 'POST',
      paths: [`/oauth/${name}`],
      summary: 'Always 400: no authorization server is offered',
      tag: 'auth',
      servedBy: 'route',
      cors: 'closed',
      responses: { 400: ok('authorization_server_not_offered', json(NOT_OFFERED)) },
    },
  ]),
  {
    id: 'getStaffBuildStatus',
    method: 'GET',
    paths: prefixed('/staff/build'),
    summary: 'Status of the last rebuild (time, counts, rejects)',
    tag: 'staff',
    servedBy: 'route',
    security: 'staffBearer',
    cors: 'closed',
    responses: { 200: ok('Build status', json({ json: { $ref: '#/components/schemas/StaffBuildStatus' } })) },
  },
  {
    id: 'reloadStaffBuild',
    method: 'POST',
    paths: prefixed('/staff/reload'),
    summary: 'Switch to the newest build (<data>/current) and return its status',
    description: 'What the daily rebuild calls when it cannot signal the shim; the previous build keeps serving if the new one fails to load.',
    tag: 'staff',
    servedBy: 'route',
    security: 'staffBearer',
    cors: 'closed',
    responses: {
      200: ok('Status of the build now served', json({ json: { $ref: '#/components/schemas/StaffBuildStatus' } })),
      503: ok('No build to switch to, or it could not be loaded', json(ErrorSchema)),
    },
  },
  ...OPERATIONS_ROUTES,
  ...STANDARD_OPERATIONS,
  ...ARD_OPERATIONS,
  ...SKILL_OPERATIONS,
  ...OWNER_OPERATIONS,
]);

export const OPERATIONS: readonly Operation[] = OPERATION_TABLE;

export function operation(id: string): Operation {
  const found = OPERATIONS.find((op) => op.id === id);
  if (!found) throw new Error(`unknown operation ${id}`);
  return found;
}

/** Express-style path (find-my-way) of an OpenAPI path: {id} → :id. */
export function routePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

type AnyOperation = (typeof OPERATION_TABLE)[number];
/** The operations a handler of the shim answers (the rest are files of the build). */
export type RouteOperationId = Extract<AnyOperation, { servedBy: 'route' }>['id'];
export type RouteOperation = RouteOperationOf<RouteOperationId>;
