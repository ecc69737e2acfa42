// Operations that serve the catalog through other projects' open standards (the official MCP registry API,
// ARD, Agent Skills discovery). Part of the one operations table (operations.ts spreads them in), kept in
// their own module because each follows a document we do not own: its link is next to the entry.
import { apiAliases } from '../brand.ts';
import { defineOperations, pathParam, type ResponseDoc, type Schema } from './operation-types.ts';
import { REGISTRY_PAGE } from '../agents/registry-mapping.ts';
import { integerParam, textParam } from './listing-query.ts';

const json = (schema: Schema): Record<string, Schema> => ({ 'application/json': schema });
const ok = (description: string, content?: Record<string, Schema | undefined>): ResponseDoc => ({ description, content });
const ERROR = { json: { $ref: '#/components/schemas/Error' } } as const;

const SERVER_RESPONSE = {
  json: {
    type: 'object',
    description:
      'ServerResponse of the official MCP registry API (2025-12-01): `server` is a server.json; our figures (installs, stars, full description, ' +
      'listing id and url) are under `_meta["io.catalog.registry/listing"]`.',
    required: ['server'],
    properties: {
      server: {
        type: 'object',
        required: ['name', 'description', 'version'],
        properties: {
          $schema: { type: 'string' },
          name: { type: 'string', description: 'io.github.{owner}/{slug}' },
          title: { type: 'string' },
          description: { type: 'string', maxLength: 100 },
          version: { type: 'string', description: "the listing's version, else its last update as a calendar version (2026.8.22)" },
          repository: { type: 'object', properties: { url: { type: 'string' }, source: { type: 'string' } } },
          websiteUrl: { type: 'string' },
          packages: { type: 'array', items: { type: 'object' } },
        },
      },
      _meta: { type: 'object' },
    },
  },
} as const;

const SERVER_LIST = {
  json: {
    type: 'object',
    description: 'ServerList of the official MCP registry API',
    required: ['servers'],
    properties: {
      servers: { type: 'array', items: SERVER_RESPONSE.json },
      metadata: {
        type: 'object',
        properties: { nextCursor: { type: 'string', description: 'absent on the last page' }, count: { type: 'integer' } },
      },
    },
  },
} as const;

const SERVER_NAME_PARAM = pathParam('serverName', 'Server name io.github.{owner}/{slug}, the slash URL-encoded (%2F).', 256);
const INCLUDE_DELETED = textParam('include_deleted', 'Accepted for compatibility; nothing is ever deleted here.', { values: ['true', 'false'] });

export const STANDARD_OPERATIONS = defineOperations([
  // https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/api/openapi.yaml
  {
    id: 'registryListServers',
    method: 'GET',
    paths: ['/v0.1/servers'],
    summary: 'MCP servers in the official MCP registry API shape (server.json), most starred first',
    description:
      'Compatible with GET /v0.1/servers of the official MCP registry (API 2025-12-01), read-only. search runs the catalog keyword search over MCP listings.',
    tag: 'catalog',
    servedBy: 'route',
    query: [
      textParam('cursor', 'metadata.nextCursor of the previous page.'),
      integerParam('limit', 'Servers per page.', { min: 1, max: REGISTRY_PAGE.max, default: REGISTRY_PAGE.default }),
      textParam('search', 'Keyword search over name, description, repo and author.', { maxLength: 128 }),
      textParam('updated_since', 'RFC 3339 date-time: only servers updated at or after it.'),
      textParam('version', "'latest' (every server: one version is kept) or an exact version."),
      INCLUDE_DELETED,
    ],
    responses: { 200: ok('A page of servers', json(SERVER_LIST)) },
  },
  {
    id: 'registryServerVersions',
    method: 'GET',
    paths: ['/v0.1/servers/{serverName}/versions'],
    summary: 'Versions of one MCP server (the catalog keeps the current one)',
    tag: 'catalog',
    servedBy: 'route',
    pathParams: [SERVER_NAME_PARAM],
    query: [INCLUDE_DELETED],
    responses: { 200: ok('The versions', json(SERVER_LIST)), 404: ok('No MCP server has this name', json(ERROR)) },
  },
  {
    id: 'registryServerVersion',
    method: 'GET',
    paths: ['/v0.1/servers/{serverName}/versions/{version}'],
    summary: 'One version of an MCP server; `latest` names the current one',
    tag: 'catalog',
    servedBy: 'route',
    pathParams: [SERVER_NAME_PARAM, pathParam('version', 'latest, or the exact version', 255)],
    query: [INCLUDE_DELETED],
    responses: { 200: ok('The server', json(SERVER_RESPONSE)), 404: ok('No MCP server has this name or version', json(ERROR)) },
  },
]);

// https://github.com/ards-project/ard-spec/blob/main/spec/ard.md §7 (and spec/schemas/ard.openapi.yaml)
const ARD_ERROR = {
  json: {
    type: 'object',
    required: ['errorCode', 'message'],
    description: 'ARD Appendix B error: errorCode (INVALID_ARGUMENT, NOT_FOUND, ...) next to our code, message and resolution',
    properties: { errorCode: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, resolution: { type: 'string' } },
  },
} as const;
const ARD_ENTRY = {
  json: {
    type: 'object',
    description: 'ARD catalog entry (§4.2) of a listing',
    required: ['identifier', 'displayName', 'type', 'url'],
    properties: {
      identifier: { type: 'string', description: 'urn:air:github.com:{owner}:{repo}:{slug}' },
      displayName: { type: 'string' },
      type: { type: 'string', description: 'media type of the artifact at url' },
      url: { type: 'string' },
      description: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      capabilities: { type: 'array', items: { type: 'string' }, description: "the listing's categories" },
      representativeQueries: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 5 },
      version: { type: 'string' },
      updatedAt: { type: 'string' },
      metadata: {
        type: 'object',
        description:
          'scalars: listingId, listingType, page, repo, installs, stars, trending, installsProvenance, starsProvenance, historyProvenance, installCommand',
      },
    },
  },
} as const;
const ARD_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    text: { type: 'string', maxLength: 512 },
    filter: {
      type: 'object',
      description: 'type, publisher, capabilities, tags: a value or an array of values (OR within a key, AND across keys)',
      additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    },
  },
} as const;

export const ARD_OPERATIONS = defineOperations([
  {
    id: 'ardRegistry',
    method: 'GET',
    paths: ['/ard'],
    summary: "The ARD registry's base URL: its entry, the specification it follows and its endpoints",
    tag: 'agents',
    servedBy: 'route',
    responses: { 200: ok('Registry description', json({ json: { type: 'object', required: ['identifier', 'type', 'url', 'endpoints'] } })) },
  },
  {
    id: 'ardSearch',
    method: 'POST',
    paths: ['/ard/search'],
    summary: 'ARD Search: listings as ARD catalog entries ranked by the hybrid search, with a relevance score 0-100',
    description:
      'Agentic Resource Discovery §7.2. query.text is required; the score is the reciprocal-rank weight of the result scaled to 100 (relevance only, not trust). ' +
      'federation: auto and none search this registry alone; referrals adds an empty referrals list (no upstream registries are configured).',
    tag: 'agents',
    servedBy: 'route',
    body: {
      required: true,
      schema: {
        json: {
          type: 'object',
          required: ['query'],
          additionalProperties: false,
          properties: {
            query: { ...ARD_QUERY, required: ['text'] },
            federation: { type: 'string', enum: ['auto', 'referrals', 'none'], default: 'auto' },
            pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
            pageToken: { type: 'string' },
          },
        },
      },
    },
    responses: {
      200: ok(
        'Ranked entries',
        json({
          json: {
            type: 'object',
            required: ['results'],
            properties: {
              results: {
                type: 'array',
                items: {
                  allOf: [
                    ARD_ENTRY.json,
                    {
                      type: 'object',
                      required: ['score', 'source'],
                      properties: { score: { type: 'integer', minimum: 0, maximum: 100 }, source: { type: 'string' } },
                    },
                  ],
                },
              },
              referrals: { type: 'array', items: { type: 'object' } },
              pageToken: { type: 'string' },
            },
          },
        }),
      ),
      400: ok('Invalid request (errorCode INVALID_ARGUMENT)', json(ARD_ERROR)),
    },
  },
  {
    id: 'ardExplore',
    method: 'POST',
    paths: ['/ard/explore'],
    summary: 'ARD Explore: facets (type, publisher, capabilities, tags) with counts over the matched set',
    description:
      "Agentic Resource Discovery §7.3. The matched set of a text query is the same as Search's (its top 500); otherCount counts entries in buckets beyond limit.",
    tag: 'agents',
    servedBy: 'route',
    body: {
      required: true,
      schema: {
        json: {
          type: 'object',
          required: ['resultType'],
          additionalProperties: false,
          properties: {
            query: ARD_QUERY,
            resultType: {
              type: 'object',
              required: ['facets'],
              properties: {
                facets: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['field'],
                    properties: {
                      field: { type: 'string', enum: ['type', 'publisher', 'capabilities', 'tags'] },
                      limit: { type: 'integer', default: 20 },
                      minCount: { type: 'integer', default: 1 },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    responses: {
      200: ok(
        'Facets',
        json({ json: { type: 'object', required: ['resultType', 'facets'], properties: { resultType: { const: 'facets' }, facets: { type: 'object' } } } }),
      ),
      400: ok('Invalid request (errorCode INVALID_ARGUMENT)', json(ARD_ERROR)),
    },
  },
  {
    id: 'ardListAgents',
    method: 'GET',
    paths: ['/ard/agents'],
    summary: 'ARD List: every listing as an ARD entry, in a deterministic order',
    description:
      "Agentic Resource Discovery §7.4 and Appendix A. filter: clauses field = 'value' joined by AND over type, publisherId, displayName (contains) and updatedAfter.",
    tag: 'agents',
    servedBy: 'route',
    query: [
      textParam('filter', "e.g. type = 'application/vnd.mcp.server+json' AND updatedAfter > '2026-01-01T00:00:00Z'", { maxLength: 512 }),
      textParam('orderBy', 'Default installs DESC; ties by id.', { values: ['installs DESC', 'stars DESC', 'trending DESC', 'displayName'] }),
      integerParam('pageSize', 'Entries per page.', { min: 1, max: 100, default: 20 }),
      textParam('pageToken', 'pageToken of the previous page.'),
    ],
    responses: {
      200: ok(
        'A page of entries',
        json({
          json: {
            type: 'object',
            required: ['items'],
            properties: { items: { type: 'array', items: ARD_ENTRY.json }, total: { type: 'integer' }, pageToken: { type: 'string' } },
          },
        }),
      ),
      400: ok('Invalid parameter (errorCode INVALID_ARGUMENT)', json(ARD_ERROR)),
    },
  },
  {
    id: 'ardGetAgent',
    method: 'GET',
    paths: ['/ard/agents/{identifier}'],
    summary: 'ARD entry by its urn:air: identifier',
    tag: 'agents',
    servedBy: 'route',
    pathParams: [pathParam('identifier', 'urn:air:github.com:{owner}:{repo}:{slug}', 512)],
    responses: { 200: ok('The entry', json(ARD_ENTRY)), 404: ok('No entry has this identifier (errorCode NOT_FOUND)', json(ARD_ERROR)) },
  },
  {
    id: 'getArdManifest',
    method: 'GET',
    paths: ['/.well-known/ard.json'],
    summary: 'ARD capability manifest (the AI catalog with the entry of this registry, type application/ai-registry+json)',
    tag: 'discovery',
    servedBy: 'static',
    responses: { 200: ok('Manifest', json({ json: { type: 'object' } })) },
  },
]);

// Agent Skills discovery 0.2.0 (https://github.com/cloudflare/agent-skills-discovery-rfc)
export const SKILL_OPERATIONS = defineOperations([
  {
    id: 'getAgentSkillsIndex',
    method: 'GET',
    paths: ['/.well-known/agent-skills/index.json'],
    summary: 'Agent Skills discovery index (0.2.0): every skill with stored files, its SKILL.md URL and SHA-256 digest',
    tag: 'discovery',
    servedBy: 'route',
    responses: {
      200: ok(
        'The index',
        json({
          json: {
            type: 'object',
            required: ['$schema', 'skills'],
            properties: {
              $schema: { const: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json' },
              skills: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'type', 'description', 'url', 'digest'],
                  properties: {
                    name: { type: 'string' },
                    type: { const: 'skill-md' },
                    description: { type: 'string' },
                    url: { type: 'string' },
                    digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
                  },
                },
              },
            },
          },
        }),
      ),
    },
  },
  {
    id: 'getAgentSkillFile',
    method: 'GET',
    paths: ['/.well-known/agent-skills/{name}/{path}'],
    summary: 'One stored file of a skill, raw (SKILL.md and the files it bundles; the path may have slashes)',
    tag: 'discovery',
    servedBy: 'route',
    pathParams: [pathParam('name', 'The skill name (listing slug)', 64), pathParam('path', 'The file path, e.g. SKILL.md or scripts/run.py', 512)],
    responses: {
      200: ok('The file, with ETag and Content-Digest (SHA-256)', { 'text/markdown': { json: { type: 'string' } } }),
      404: ok('No such skill or file', json(ERROR)),
    },
  },
]);

// Issue 15 item 6 (the API half): owner figures and listing badges.
export const OWNER_OPERATIONS = defineOperations([
  {
    id: 'getOwnerStats',
    method: 'GET',
    paths: apiAliases('/owners/{owner}/stats'),
    summary: 'Figures of one repository owner: listings per type, summed installs and stars, rank among owners per type',
    description:
      "Stars are summed over distinct repositories (the largest figure of a repository's listings); the rank orders the owners of a type by the sum of its ranking metric (installs, or stars for MCP servers and marketplaces), ties by name.",
    tag: 'catalog',
    servedBy: 'route',
    pathParams: [pathParam('owner', 'Repository owner (case-insensitive)', 128)],
    responses: {
      200: ok(
        'Owner figures',
        json({
          json: {
            type: 'object',
            required: ['owner', 'total', 'installs', 'stars', 'byType'],
            properties: {
              owner: { type: 'string' },
              total: { type: 'integer' },
              installs: {
                type: 'integer',
                description: "summed installs of the owner's listings whose installs figure is real (realInstalls of them); synthetic figures are never summed",
              },
              realInstalls: { type: 'integer', description: 'listings whose installs figure is real' },
              stars: { type: 'integer', description: 'real stars summed once per repository' },
              byType: {
                type: 'object',
                additionalProperties: {
                  type: 'object',
                  properties: {
                    count: { type: 'integer' },
                    installs: { type: 'integer' },
                    stars: { type: 'integer' },
                    realInstalls: { type: 'integer' },
                    realStars: { type: 'integer' },
                    rankedBy: { type: 'string' },
                    rank: { type: 'integer' },
                    owners: { type: 'integer' },
                  },
                },
              },
              listings: { type: 'string' },
            },
          },
        }),
      ),
      404: ok('No listing belongs to this owner', json(ERROR)),
    },
  },
  {
    id: 'getListingBadge',
    method: 'GET',
    paths: ['/badges/{slug}.svg'],
    summary: 'Embeddable SVG badge of a listing: its ranking figure (grey when the figure is synthetic)',
    tag: 'catalog',
    servedBy: 'route',
    pathParams: [pathParam('slug', 'Listing slug', 256)],
    responses: { 200: ok('The badge', { 'image/svg+xml': { json: { type: 'string' } } }), 404: ok('No listing has this slug', json(ERROR)) },
  },
]);
