// /.well-known/api-catalog (RFC 9727): a Linkset (RFC 9264) naming the catalog's APIs with their descriptions,
// docs, policies and status: the JSON API, the MCP endpoints and the A2A agent. Served as application/linkset+json
// with the RFC 9727 profile by default, as application/json to a client that asks for JSON and not for a linkset,
// and always with the Link header RFC 9727 §2 asks of it.
import { AGENT_PATHS } from '../../../src/domain/agents/agent-surfaces.ts';
import { SITE_PATHS } from '../../../src/domain/site-paths.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';
import { MEDIA_TYPES, operationPath } from './site-links.ts';

export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const LINKSET_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}
export type LinkContext = { anchor: string } & Record<string, string | LinkTarget[]>;

export function apiCatalog(baseUrl: string): { linkset: LinkContext[] } {
  const url = (path: string) => baseUrl + path;
  const api = url(operationPath('getVersioningPolicy'));
  const mcp = url(AGENT_PATHS.mcp);
  const docsMcp = url(AGENT_PATHS.mcpDocs);
  const a2a = url(AGENT_PATHS.a2a);
  const ask = url(AGENT_PATHS.ask);
  const registry = url(operationPath('registryListServers'));
  const ard = url(operationPath('ardListAgents'));
  const openApi = { href: url(operationPath('getOpenApiJson')), type: MEDIA_TYPES.openApiJson, title: 'OpenAPI 3.1 (JSON)' };
  const apiDoc = { href: url(SITE_PATHS.doc('api')), type: MEDIA_TYPES.html, title: 'Catalog API' };
  const agentsDoc = { href: url(AGENT_PATHS.docsAgents), type: MEDIA_TYPES.html, title: 'Agents, A2A and /ask' };
  return {
    linkset: [
      // RFC 9727 §3.1: the catalog itself, with one `item` per API.
      { anchor: url(operationPath('getApiCatalog')), item: [api, mcp, docsMcp, a2a, ask, registry, ard].map((href) => ({ href })) },
      {
        anchor: api,
        'service-desc': [
          { href: url(operationPath('getOpenApiJson')), type: MEDIA_TYPES.openApiJson, title: 'OpenAPI 3.1 (JSON)' },
          { href: url(operationPath('getOpenApiYaml')), type: MEDIA_TYPES.yaml, title: 'OpenAPI 3.1 (YAML)' },
        ],
        'service-doc': [
          { href: url(SITE_PATHS.doc('api')), type: MEDIA_TYPES.html, title: 'Catalog API' },
          { href: url(operationPath('getLlmsTxt')), type: 'text/plain', title: 'llms.txt: a map of the site for language models' },
        ],
        'service-meta': [
          { href: api, type: 'application/json', title: 'Versioning policy' },
          { href: url(operationPath('getPricing')), type: 'text/markdown', title: 'Pricing: free' },
          { href: url(operationPath('getAuthRecipe')), type: 'text/markdown', title: 'Authentication: none for the public catalog' },
        ],
        status: [{ href: url(operationPath('getMeta')), type: 'application/json', title: 'Site meta with the time of the last update' }],
      },
      {
        anchor: mcp,
        'service-desc': [
          { href: url(AGENT_PATHS.serverCard), type: 'application/json', title: 'MCP server card' },
          { href: mcp, type: 'application/json', title: 'MCP discovery metadata (GET)' },
          { href: url(AGENT_PATHS.mcpServers), type: 'application/json', title: 'mcpServers entry for MCP clients' },
        ],
        'service-doc': [{ href: url(AGENT_PATHS.docsMcp), type: MEDIA_TYPES.html, title: 'MCP servers' }],
      },
      {
        anchor: docsMcp,
        'service-desc': [{ href: docsMcp, type: 'application/json', title: 'Docs MCP discovery metadata (GET)' }],
        'service-doc': [{ href: url(AGENT_PATHS.docsMcp), type: MEDIA_TYPES.html, title: 'MCP servers' }],
      },
      {
        anchor: a2a,
        'service-desc': [{ href: url(AGENT_PATHS.agentCard), type: 'application/json', title: 'A2A agent card' }],
        'service-doc': [agentsDoc],
      },
      // The MCP servers in the official MCP registry API shape, and the whole catalog as an ARD Agent Registry.
      {
        anchor: registry,
        'service-desc': [{ ...openApi, title: 'OpenAPI 3.1 (operations registryListServers, registryServerVersions, registryServerVersion)' }],
        'service-doc': [apiDoc],
      },
      {
        anchor: ard,
        'service-desc': [{ ...openApi, title: 'OpenAPI 3.1 (operations ardSearch, ardExplore, ardListAgents, ardGetAgent)' }],
        'service-doc': [agentsDoc],
      },
      {
        anchor: ask,
        'service-desc': [{ href: url(operationPath('getOpenApiJson')), type: MEDIA_TYPES.openApiJson, title: 'OpenAPI 3.1 (operations askGet, askPost)' }],
        'service-doc': [agentsDoc],
      },
    ],
  };
}

export function apiCatalogFiles(ctx: Pick<StageContext, 'baseUrl'>): GeneratedFile[] {
  const path = operationPath('getApiCatalog');
  return [
    {
      path,
      contentType: LINKSET_TYPE,
      alternates: [{ contentType: MEDIA_TYPES.json }],
      headers: { Link: `<${ctx.baseUrl + path}>; rel="api-catalog"; type="application/linkset+json"` },
      body: `${JSON.stringify(apiCatalog(ctx.baseUrl), null, 2)}\n`,
    },
  ];
}
