// The agent surfaces of SERVICE.md 4.3: the catalog MCP endpoint (and its /mcp alias and SSE form), the docs MCP
// endpoint, the A2A agent and /ask. One Idempotency-Key store and one SSE session registry serve them all.
import { AGENT_PATHS } from '../../src/domain/agents/agent-surfaces.ts';
import { a2aHandler } from '../a2a/a2a.ts';
import { askGetHandler, askPostHandler } from '../agents/ask.ts';
import type { HandlersFor } from '../http/handler.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';
import { catalogMcpServer } from '../mcp/catalog-mcp.ts';
import { docsMcpServer } from '../mcp/docs-mcp.ts';
import { mcpGetHandler, mcpPostHandler, mcpSseHandshake, type McpHttpDeps } from '../mcp/mcp-http.ts';
import type { SseSessions } from '../mcp/sse-sessions.ts';
import type { Services } from '../services.ts';

type AgentOperations =
  | 'mcpCatalog'
  | 'mcpRoot'
  | 'mcpSse'
  | 'mcpSseHandshake'
  | 'mcpDocs'
  | 'getMcpDiscovery'
  | 'getMcpDocsDiscovery'
  | 'getMcpHub'
  | 'a2aSendMessage'
  | 'askGet'
  | 'askPost';

/** The stores the agent surfaces share; made by the composition root. */
export interface AgentStores {
  idempotency: IdempotencyStore;
  sessions: SseSessions;
}

export function agentHandlers(services: Services, stores: AgentStores): HandlersFor<AgentOperations> {
  const deps: McpHttpDeps = { services, ...stores };
  const catalog = catalogMcpServer(services);
  // The docs pages, and yaml for their front matter, are loaded on the docs server's first call, not at start.
  const docs = docsMcpServer(async () => (await import('../../src/docs/index.ts')).loadDocs(), services.config.baseUrl);
  // GET on a Streamable HTTP endpoint: the built document (discovery JSON, or the MCP hub page at /mcp), or 405 for
  // a client asking for a standalone SSE stream.
  const document = mcpGetHandler(services);
  return {
    mcpCatalog: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcp, wrap: 'json' }),
    mcpRoot: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcpAlias, wrap: 'json' }),
    mcpSse: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcpSse, wrap: 'sse' }),
    mcpSseHandshake: mcpSseHandshake(deps),
    mcpDocs: mcpPostHandler(deps, { server: docs, path: AGENT_PATHS.mcpDocs, wrap: 'json' }),
    getMcpDiscovery: document,
    getMcpDocsDiscovery: document,
    getMcpHub: document,
    a2aSendMessage: a2aHandler(services, stores.idempotency),
    askGet: askGetHandler(services),
    askPost: askPostHandler(services, stores.idempotency),
  };
}
