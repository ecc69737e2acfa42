// The product's words, in one place: pages, SiteMeta, discovery files and MCP cards read them from here.
export const BRAND = 'catalog';
export const TAGLINE = 'An independent directory of AI-agent skills, MCP servers, marketplaces, plugins and workflows.';
export const DISCLAIMER =
  'catalog is an independent directory. It is not affiliated with, endorsed by or sponsored by any of the projects, ' +
  'companies or marketplaces it lists; names and trademarks belong to their owners.';
export const MCP_PACKAGE = 'catalog-mcp';
export const API_VERSION = '1';
/** Where the versioned API answers: the canonical prefix first, then the aliases SERVICE.md gives it. */
export const API_PREFIXES = ['/api/v1', '/api/upstream', '/v1'] as const;
/** One API path under every prefix, canonical first. */
export const apiAliases = (suffix: string): string[] => API_PREFIXES.map((prefix) => prefix + suffix);
