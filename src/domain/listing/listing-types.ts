// The five listing types and what ranks each: skills by installs, MCP servers and marketplaces by repository stars
// (SERVICE.md section 1); plugins and workflows by the stars of their repository, the only real figure any source
// gives them (no source measures their installs).
export const LISTING_TYPES = ['skill', 'marketplace', 'plugin', 'mcp', 'workflow'] as const;
export type ListingType = (typeof LISTING_TYPES)[number];

export const TYPE_LABELS: Record<ListingType, { singular: string; plural: string }> = {
  skill: { singular: 'Skill', plural: 'Skills' },
  marketplace: { singular: 'Marketplace', plural: 'Marketplaces' },
  plugin: { singular: 'Plugin', plural: 'Plugins' },
  mcp: { singular: 'MCP server', plural: 'MCP servers' },
  workflow: { singular: 'Workflow', plural: 'Workflows' },
};

/** The metric a type is ranked by on its own pages and in the relevance prior. */
export const RANKING_METRIC: Record<ListingType, 'installs' | 'stars'> = {
  skill: 'installs',
  plugin: 'stars',
  workflow: 'stars',
  mcp: 'stars',
  marketplace: 'stars',
};

/** How a type's ranking metric reads on a page: stars are always those of the listing's repository. */
export const RANKING_METRIC_LABEL: Record<ListingType, string> = {
  skill: 'installs',
  plugin: 'repository stars',
  workflow: 'repository stars',
  mcp: 'repository stars',
  marketplace: 'repository stars',
};

export function isListingType(value: string): value is ListingType {
  return (LISTING_TYPES as readonly string[]).includes(value);
}

export function typeCode(type: ListingType): number {
  return LISTING_TYPES.indexOf(type);
}
