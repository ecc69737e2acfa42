// The agent surfaces of SERVICE.md 4.3: the catalog MCP endpoint (and its /mcp alias and SSE form), the docs MCP
// endpoint, the A2A agent and /ask. One Idempotency-Key store and one SSE session registry serve them all.
import { AGENT_PATHS } from '../../src/domain/agent-surfaces.ts';
import { loadDocs } from '../../src/docs/index.ts';
import { a2aHandler } from '../a2a/a2a.ts';
import { askGetHandler, askPostHandler } from '../agents/ask.ts';
import type { Route } from '../http/router.ts';
import { createIdempotencyStore } from '../idempotency/idempotency.ts';
import { catalogMcpServer } from '../mcp/catalog-mcp.ts';
import { docsMcpServer } from '../mcp/docs-mcp.ts';
import { mcpGetHandler, mcpPostHandler, mcpSseHandshake, type McpHttpDeps } from '../mcp/mcp-http.ts';
import { SseSessions } from '../mcp/sse-sessions.ts';
import type { Services } from '../services.ts';

export function agentRoutes(services: Services): Route[] {
  const idempotency = createIdempotencyStore({ redis: services.redis, logger: services.logger });
  const deps: McpHttpDeps = { services, idempotency, sessions: new SseSessions() };
  const catalog = catalogMcpServer(services);
  const docs = docsMcpServer(loadDocs(), services.config.baseUrl);

  return [
    { method: 'POST', path: AGENT_PATHS.mcp, handler: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcp, wrap: 'json' }) },
    { method: 'POST', path: AGENT_PATHS.mcpAlias, handler: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcpAlias, wrap: 'json' }) },
    { method: 'POST', path: AGENT_PATHS.mcpSse, handler: mcpPostHandler(deps, { server: catalog, path: AGENT_PATHS.mcpSse, wrap: 'sse' }) },
    { method: 'GET', path: AGENT_PATHS.mcpSse, handler: mcpSseHandshake(deps) },
    { method: 'POST', path: AGENT_PATHS.mcpDocs, handler: mcpPostHandler(deps, { server: docs, path: AGENT_PATHS.mcpDocs, wrap: 'json' }) },
    // GET on a Streamable HTTP endpoint: the built document (discovery JSON, or the MCP hub page at /mcp), or 405 for
    // a client asking for a standalone SSE stream.
    { method: 'GET', path: [AGENT_PATHS.mcp, AGENT_PATHS.mcpDocs, AGENT_PATHS.mcpAlias], handler: mcpGetHandler(services) },
    { method: 'POST', path: AGENT_PATHS.a2a, handler: a2aHandler(services, idempotency) },
    { method: 'GET', path: AGENT_PATHS.ask, handler: askGetHandler(services) },
    { method: 'POST', path: AGENT_PATHS.ask, handler: askPostHandler(services, idempotency) },
  ];
}
