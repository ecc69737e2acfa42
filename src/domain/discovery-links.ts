// The Link header (RFC 8288) that points agents from a page or the API root to the discovery documents; the shim
// and the generated front add the same value on the same paths.
import { AGENT_PATHS } from './agent-surfaces.ts';
import { ARD_PATHS } from './ard.ts';

export function discoveryLinks(baseUrl: string): string {
  return [
    `<${baseUrl}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`,
    `<${baseUrl}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json;version=3.1"`,
    `<${baseUrl}/docs/api/>; rel="service-doc"; type="text/html"`,
    `<${baseUrl}${AGENT_PATHS.serverCard}>; rel="describedby"; type="application/mcp-server-card+json"; title="MCP server card"`,
    `<${baseUrl}${AGENT_PATHS.agentCard}>; rel="describedby"; type="application/a2a-agent-card+json"; title="A2A agent card"`,
    `<${baseUrl}/.well-known/ai-catalog.json>; rel="ai-catalog"; type="application/json"`,
    `<${baseUrl}${ARD_PATHS.manifest}>; rel="ard"; type="application/json"`,
  ].join(', ');
}

/** Paths without a trailing slash that take the links besides every page (which ends in a slash). */
export const LINKED_PATHS_WITHOUT_SLASH = ['/api/v1', '/v1', '/browse', '/mcp', '/login'] as const;

/** Pages (every site page ends in a slash, plus the few without one) and the API root. */
export function takesDiscoveryLinks(path: string): boolean {
  return path.endsWith('/') || (LINKED_PATHS_WITHOUT_SLASH as readonly string[]).includes(path);
}
