// Discovery documents of the agent surfaces: the A2A agent card, the MCP server card, the MCP discovery metadata
// (and its aliases), the docs MCP discovery and /mcp.json. Pure functions of the public base URL; tools, versions
// and paths come from src/domain/agents/agent-surfaces.ts, the module the shim's handlers read too.
import {
  A2A_PROTOCOL_VERSIONS,
  AGENT_PATHS,
  CATALOG_RESOURCE,
  CATALOG_TOOLS,
  DOCS_TOOLS,
  MCP_BATCH_VERSIONS,
  MCP_DOCS_INSTRUCTIONS,
  MCP_DOCS_SERVER_NAME,
  MCP_INSTRUCTIONS,
  MCP_SERVER_NAME,
  MCP_SERVER_VERSION,
  MCP_SESSION_VERSIONS,
  MCP_STATELESS_VERSIONS,
  MCP_STDIO,
  MCP_VERSIONS,
  toolDescriptor,
} from '../../../src/domain/agents/agent-surfaces.ts';
import { BRAND, TAGLINE } from '../../../src/domain/brand.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';

type Json = Record<string, unknown>;
type Context = Pick<StageContext, 'baseUrl'>;

const JSON_TYPE = 'application/json';
const file = (path: string, body: Json): GeneratedFile => ({ path, contentType: JSON_TYPE, body: `${JSON.stringify(body, null, 2)}\n` });

const catalogTools = () => Object.values(CATALOG_TOOLS).map(toolDescriptor);
const docsTools = () => Object.values(DOCS_TOOLS).map(toolDescriptor);
const resources = () => [
  {
    uri: CATALOG_RESOURCE.uri,
    name: CATALOG_RESOURCE.name,
    title: CATALOG_RESOURCE.title,
    description: CATALOG_RESOURCE.description,
    mimeType: CATALOG_RESOURCE.mimeType,
  },
];
const capabilities = { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false } };

/** A2A agent card with the 1.0 supportedInterfaces and the 0.3 url/protocolVersion/preferredTransport fields. */
export function agentCard(ctx: Context): Json {
  const url = ctx.baseUrl + AGENT_PATHS.a2a;
  const modes = ['text/plain', 'application/json'];
  return {
    name: BRAND,
    description: `${TAGLINE} Ask in plain words and get the matching listings back as data.`,
    version: MCP_SERVER_VERSION,
    // A2A 1.0: one interface per protocol binding and version; the 1.0 entry is listed first.
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSIONS.current },
      { url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSIONS.legacy },
    ],
    // A2A 0.3.
    url,
    protocolVersion: A2A_PROTOCOL_VERSIONS.legacy,
    preferredTransport: 'JSONRPC',
    provider: { organization: BRAND, url: ctx.baseUrl },
    documentationUrl: ctx.baseUrl + AGENT_PATHS.docsAgents,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: modes,
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      {
        id: 'search-catalog',
        name: 'Search the catalog',
        description:
          'Finds agent skills, MCP servers, marketplaces, plugins and workflows for a need written in plain words. Answers with a short ' +
          'text and a data part {query, count, hasMore, searchMode, listings}. A data part {query, type, category, limit} refines the search.',
        tags: ['search', 'catalog', 'mcp', 'skills', 'agents'],
        examples: ['something to let my agent query Postgres', 'MCP server for GitHub issues', 'a skill that fills in PDF forms'],
        inputModes: modes,
        outputModes: ['application/json', 'text/plain'],
      },
    ],
  };
}

/** MCP server card: the stdio package and the Streamable HTTP (and legacy SSE) remotes. */
export function serverCard(ctx: Context): Json {
  return {
    name: MCP_SERVER_NAME,
    title: BRAND,
    description: TAGLINE,
    version: MCP_SERVER_VERSION,
    websiteUrl: ctx.baseUrl,
    documentationUrl: ctx.baseUrl + AGENT_PATHS.docsMcp,
    serverInfo: { name: MCP_SERVER_NAME, title: BRAND, version: MCP_SERVER_VERSION },
    supportedProtocolVersions: MCP_VERSIONS,
    packages: [
      {
        registryType: 'npm',
        identifier: MCP_STDIO.package,
        runtimeHint: MCP_STDIO.command,
        transport: { type: 'stdio' },
        command: MCP_STDIO.command,
        args: MCP_STDIO.args,
      },
    ],
    remotes: [
      { type: 'streamable-http', url: ctx.baseUrl + AGENT_PATHS.mcp, supportedProtocolVersions: MCP_VERSIONS },
      { type: 'sse', url: ctx.baseUrl + AGENT_PATHS.mcpSse },
    ],
    authentication: { required: false, schemes: [] },
    capabilities,
    instructions: MCP_INSTRUCTIONS,
    tools: catalogTools(),
    resources: resources(),
  };
}

/** MCP discovery metadata (GET /.well-known/mcp, /.well-known/mcp.json, /.well-known/mcp/product). */
export function mcpDiscovery(ctx: Context): Json {
  const endpoint = ctx.baseUrl + AGENT_PATHS.mcp;
  return {
    name: MCP_SERVER_NAME,
    title: BRAND,
    description: TAGLINE,
    version: MCP_SERVER_VERSION,
    endpoint,
    aliases: [ctx.baseUrl + AGENT_PATHS.mcpAlias],
    transports: [
      { type: 'streamable-http', url: endpoint, methods: ['POST'], sessions: false, standaloneStream: false },
      { type: 'sse', url: ctx.baseUrl + AGENT_PATHS.mcpSse, handshake: 'GET', messages: 'POST' },
      { type: 'stdio', package: MCP_STDIO.package, command: MCP_STDIO.command, args: MCP_STDIO.args },
    ],
    protocolVersions: MCP_VERSIONS,
    sessionProtocolVersions: MCP_SESSION_VERSIONS,
    statelessProtocolVersions: MCP_STATELESS_VERSIONS,
    batchProtocolVersions: MCP_BATCH_VERSIONS,
    authentication: { required: false },
    capabilities,
    instructions: MCP_INSTRUCTIONS,
    tools: catalogTools(),
    resources: resources(),
    serverCard: ctx.baseUrl + AGENT_PATHS.serverCard,
    docsServer: ctx.baseUrl + AGENT_PATHS.mcpDocs,
    documentation: ctx.baseUrl + AGENT_PATHS.docsMcp,
  };
}

/** Discovery of the second MCP surface: the website docs (not the catalog). */
export function docsMcpDiscovery(ctx: Context): Json {
  const endpoint = ctx.baseUrl + AGENT_PATHS.mcpDocs;
  return {
    name: MCP_DOCS_SERVER_NAME,
    title: `${BRAND} docs`,
    description: `The ${BRAND} documentation pages over MCP. This is not the catalog MCP server (see ${ctx.baseUrl + AGENT_PATHS.mcp}).`,
    version: MCP_SERVER_VERSION,
    endpoint,
    transports: [{ type: 'streamable-http', url: endpoint, methods: ['POST'], sessions: false, standaloneStream: false }],
    protocolVersions: MCP_VERSIONS,
    authentication: { required: false },
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_DOCS_INSTRUCTIONS,
    tools: docsTools(),
    documentation: ctx.baseUrl + AGENT_PATHS.docsMcp,
  };
}

/** The mcpServers map MCP clients import: the stdio package, the Streamable HTTP remote, and the package from a checkout. */
export function mcpServersJson(ctx: Context): Json {
  return {
    mcpServers: {
      [MCP_SERVER_NAME]: { command: MCP_STDIO.command, args: MCP_STDIO.args, env: { [MCP_STDIO.urlVariable]: ctx.baseUrl } },
      [`${MCP_SERVER_NAME}-remote`]: { type: 'http', url: ctx.baseUrl + AGENT_PATHS.mcp },
      // Until the package is published: the same server run from a checkout of the repository (the path is relative to it).
      [`${MCP_SERVER_NAME}-checkout`]: {
        command: MCP_STDIO.fromCheckout.command,
        args: MCP_STDIO.fromCheckout.args,
        env: { [MCP_STDIO.urlVariable]: ctx.baseUrl },
      },
    },
  };
}

/**
 * The generator of the discovery stage. GET /.well-known/mcp is a static document while POST is JSON-RPC, and
 * /.well-known/mcp is also a directory (server-card.json, docs, sse), so the document is its index file: the
 * static handler serves a directory's index.html, and the recorded content type makes it application/json.
 */
export function agentSurfaceFiles(ctx: Context): GeneratedFile[] {
  const discovery = mcpDiscovery(ctx);
  return [
    file(AGENT_PATHS.agentCard, agentCard(ctx)),
    file(AGENT_PATHS.serverCard, serverCard(ctx)),
    file(`${AGENT_PATHS.mcp}/index.html`, discovery),
    ...AGENT_PATHS.mcpDiscoveryAliases.map((path) => file(path, discovery)),
    file(AGENT_PATHS.mcpDocs, docsMcpDiscovery(ctx)),
    file(AGENT_PATHS.mcpServers, mcpServersJson(ctx)),
  ];
}
