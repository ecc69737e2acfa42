// Operations that serve the catalog through other projects' open standards (the official MCP registry API,
// ARD, Agent Skills discovery). Part of the one operations table (operations.ts spreads them in), kept in
// their own module because each follows a document we do not own: its link is next to the entry.
import type { Operation, ResponseDoc, Schema } from './operations.ts';
import { REGISTRY_PAGE } from './mcp-registry.ts';

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
          version: { type: 'string', description: 'the listing\'s version, else its last update as a calendar version (2026.8.22)' },
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

const SERVER_NAME_PARAM = { name: 'serverName', description: 'Server name io.github.{owner}/{slug}, the slash URL-encoded (%2F).', maxLength: 256 };
const INCLUDE_DELETED = { name: 'include_deleted', kind: 'string', enum: ['true', 'false'], description: 'Accepted for compatibility; nothing is ever deleted here.' } as const;

export const STANDARD_OPERATIONS: readonly Operation[] = [
  // https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/api/openapi.yaml
  {
    id: 'registryListServers',
    method: 'GET',
    paths: ['/v0.1/servers'],
    summary: 'MCP servers in the official MCP registry API shape (server.json), most starred first',
    description: 'Compatible with GET /v0.1/servers of the official MCP registry (API 2025-12-01), read-only. search runs the catalog keyword search over MCP listings.',
    tag: 'catalog',
    servedBy: 'route',
    query: [
      { name: 'cursor', kind: 'string', description: 'metadata.nextCursor of the previous page.' },
      { name: 'limit', kind: 'integer', min: 1, max: REGISTRY_PAGE.max, default: REGISTRY_PAGE.default, description: 'Servers per page.' },
      { name: 'search', kind: 'string', maxLength: 128, description: 'Keyword search over name, description, repo and author.' },
      { name: 'updated_since', kind: 'string', description: 'RFC 3339 date-time: only servers updated at or after it.' },
      { name: 'version', kind: 'string', description: "'latest' (every server: one version is kept) or an exact version." },
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
    pathParams: [SERVER_NAME_PARAM, { name: 'version', description: 'latest, or the exact version', maxLength: 255 }],
    query: [INCLUDE_DELETED],
    responses: { 200: ok('The server', json(SERVER_RESPONSE)), 404: ok('No MCP server has this name or version', json(ERROR)) },
  },
];
