// The Link headers (RFC 8288) that point agents from a page or the API root to the discovery documents; the shim
// and the generated front add the same values on the same paths. The entry points (the home page and the API
// root) name every discovery document; every other page names the API catalog alone (RFC 9727 §3), whose linkset
// names the rest. The full set is ~750 bytes: with the security headers it takes a page's headers past 1,460
// bytes, nginx's postpone_output, so nginx sent them in a packet of their own instead of corked with the file
// (bench/records/2026-11-24-front-nginx.md).
import { AGENT_PATHS } from '../agents/agent-surfaces.ts';
import { ARD_PATHS } from '../agents/ard.ts';

/** The API catalog alone: what every page carries. */
export function apiCatalogLink(baseUrl: string): string {
  return `<${baseUrl}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`;
}

/** Every discovery document: what the entry points carry. */
export function discoveryLinks(baseUrl: string): string {
  return [
    apiCatalogLink(baseUrl),
    `<${baseUrl}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json;version=3.1"`,
    `<${baseUrl}/docs/api/>; rel="service-doc"; type="text/html"`,
    `<${baseUrl}${AGENT_PATHS.serverCard}>; rel="describedby"; type="application/mcp-server-card+json"; title="MCP server card"`,
    `<${baseUrl}${AGENT_PATHS.agentCard}>; rel="describedby"; type="application/a2a-agent-card+json"; title="A2A agent card"`,
    `<${baseUrl}/.well-known/ai-catalog.json>; rel="ai-catalog"; type="application/json"`,
    `<${baseUrl}${ARD_PATHS.manifest}>; rel="ard"; type="application/json"`,
  ].join(', ');
}

/** The entry points: they carry every discovery link. */
export const ENTRY_PATHS = ['/', '/api/v1', '/v1'] as const;

/** Paths without a trailing slash that take the API catalog link besides every page (which ends in a slash). */
export const LINKED_PATHS_WITHOUT_SLASH = ['/browse', '/mcp', '/login'] as const;

/** Which Link a path takes: every discovery link, the API catalog alone, or none. */
export function discoveryLinkKind(path: string): 'all' | 'api-catalog' | undefined {
  if ((ENTRY_PATHS as readonly string[]).includes(path)) return 'all';
  if (path.endsWith('/') || (LINKED_PATHS_WITHOUT_SLASH as readonly string[]).includes(path)) return 'api-catalog';
  return undefined;
}
