// The catalog as an Agentic Resource Discovery (ARD v0.9x, github.com/ards-project/ard-spec, spec/ard.md) Agent
// Registry: how a listing becomes an ARD catalog entry (§4.2), the request schemas of the registry API (§7), and
// the registry's own entry. Runtime-neutral: the shim's routes and the build's discovery files both use it.
import { z } from 'zod';
import { BRAND, TAGLINE } from '../brand.ts';
import { categoryLabel } from '../listing/categories.ts';
import { serverName } from './registry-mapping.ts';
import { TYPE_LABELS, type ListingType } from '../listing/listing-types.ts';
import type { Listing } from '../schemas.ts';

/** The one documented base path of the registry API: POST {base}/search, POST {base}/explore, GET {base}/agents[/{id}]. */
export const ARD_BASE_PATH = '/ard';
export const ARD_PATHS = {
  search: `${ARD_BASE_PATH}/search`,
  explore: `${ARD_BASE_PATH}/explore`,
  agents: `${ARD_BASE_PATH}/agents`,
  agent: `${ARD_BASE_PATH}/agents/{identifier}`,
  manifest: '/.well-known/ard.json',
} as const;
export const ARD_SPEC = { name: 'Agentic Resource Discovery', version: '0.91', url: 'https://github.com/ards-project/ard-spec/blob/main/spec/ard.md' } as const;
export const ARD_REGISTRY_TYPE = 'application/ai-registry+json';
export const ARD_PAGE = { searchDefault: 10, listDefault: 20, max: 100 } as const;
export const FACET_LIMIT_DEFAULT = 20;

/**
 * Media type of each listing type's artifact (the thing `url` points at). Skills are Agent Skills SKILL.md files;
 * an MCP server's record is its official-registry server.json; the other types have no standard artifact
 * format, so `url` is the listing itself, in our vendor type.
 */
export const ARD_ENTRY_TYPES: Record<ListingType, string> = {
  // The Agent Skills type of the ARD conformance tool's list: the url serves the SKILL.md as text/markdown.
  skill: 'text/markdown; profile="urn:air:agent-skills"',
  mcp: 'application/vnd.mcp.server+json',
  marketplace: `application/vnd.${BRAND}.marketplace+json`,
  plugin: `application/vnd.${BRAND}.plugin+json`,
  workflow: `application/vnd.${BRAND}.workflow+json`,
};
/**
 * Filter values that name a listing type: our own types, and the spec's names for the same kinds of artifact, so a
 * client filtering on MCP server cards or Agent Skills finds MCP servers and skills.
 */
const TYPE_OF_MEDIA = new Map<string, ListingType>([
  ...Object.entries(ARD_ENTRY_TYPES).map(([type, media]) => [media.toLowerCase(), type as ListingType] as const),
  ['application/mcp-server-card+json', 'mcp'],
  ['application/agent-skills+md', 'skill'],
  ['application/agent-skills+zip', 'skill'],
  ['application/agent-skills+gzip', 'skill'],
  ['application/ai-skill', 'skill'],
  ['application/ai-skill+md', 'skill'],
]);

export function listingTypeOfMedia(media: string): ListingType | undefined {
  return TYPE_OF_MEDIA.get(media.trim().toLowerCase());
}

/** Every listing comes from a GitHub repository, so its publisher (the URN's FQDN, Appendix C) is github.com. */
export const LISTING_PUBLISHER = 'github.com';

/** `urn:air:github.com:{owner}:{repo}:{slug}`: the domain anchors the publisher; owner and repo are the namespace. */
export function ardIdentifier(listing: Pick<Listing, 'repo' | 'slug'>): string {
  const [owner, repo] = listing.repo.split('/');
  return `urn:air:${LISTING_PUBLISHER}:${owner}:${repo}:${listing.slug}`;
}

const URN = /^urn:air:([a-zA-Z0-9.-]+)((?::[a-zA-Z0-9._-]+)*):([a-zA-Z0-9._-]+)$/i;

/** The publisher and terminal name of an `urn:air:` identifier, or undefined when it is not one. */
export function parseArdIdentifier(identifier: string): { publisher: string; name: string } | undefined {
  const match = URN.exec(identifier);
  return match ? { publisher: match[1]!.toLowerCase(), name: match[3]! } : undefined;
}

export function publisherOf(identifier: string): string | undefined {
  return parseArdIdentifier(identifier)?.publisher;
}

function firstClause(text: string, max = 90): string {
  const sentence =
    text
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?])\s/)[0] ?? '';
  const clause = sentence.replace(/[.!?]+$/, '');
  if (clause.length <= max) return clause;
  const cut = clause.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2));
}

/**
 * 2 to 5 queries a person could type to find this listing (§4.2 SHOULD): what it does (its description's first
 * clause), its category and type, and its name.
 */
export function representativeQueries(listing: Pick<Listing, 'type' | 'name' | 'description' | 'category'>): string[] {
  const kind = TYPE_LABELS[listing.type].singular.toLowerCase().replace(/^mcp/, 'MCP');
  const queries = [`${kind} for ${categoryLabel(listing.category).toLowerCase()}`, `${listing.name} ${kind}`];
  const what = firstClause(listing.description);
  if (what.length >= 12) queries.unshift(`find a ${kind} that can ${what.charAt(0).toLowerCase()}${what.slice(1)}`.replace(/ can (a|an|the) /, ' for $1 '));
  return [...new Set(queries)];
}

export interface ArdEntry {
  identifier: string;
  displayName: string;
  type: string;
  url: string;
  description: string;
  tags: string[];
  capabilities: string[];
  representativeQueries: string[];
  version?: string;
  updatedAt: string;
  metadata: Record<string, string | number | boolean>;
}

export interface ArdUrls {
  baseUrl: string;
  /** Path of a stored file of a listing, when the shim serves it raw (SKILL.md of a skill with stored files). */
  skillFile?: (slug: string) => string;
}

/** Where the artifact of a listing can be fetched. */
function artifactUrl(listing: Listing, urls: ArdUrls): string {
  if (listing.type === 'skill') {
    if (listing.files[0] === 'SKILL.md' && urls.skillFile) return urls.baseUrl + urls.skillFile(listing.slug);
    const { source } = listing;
    if (source.path?.endsWith('SKILL.md') && source.repo && source.commit)
      return `https://raw.githubusercontent.com/${source.repo}/${source.commit}/${source.path}`;
  }
  if (listing.type === 'mcp') return `${urls.baseUrl}/v0.1/servers/${encodeURIComponent(serverName(listing))}/versions/latest`;
  return `${urls.baseUrl}/api/v1/listings/${encodeURIComponent(listing.slug)}`;
}

/** A served listing (with url) as an ARD catalog entry (§4.2). */
export function toArdEntry(listing: Listing, urls: ArdUrls): ArdEntry {
  const entry: ArdEntry = {
    identifier: ardIdentifier(listing),
    displayName: listing.name,
    type: ARD_ENTRY_TYPES[listing.type],
    url: artifactUrl(listing, urls),
    description: listing.description,
    tags: listing.tags,
    capabilities: listing.categories,
    representativeQueries: representativeQueries(listing),
    updatedAt: listing.updatedAt,
    metadata: {
      listingId: listing.id,
      listingType: listing.type,
      page: listing.url,
      repo: listing.repo,
      installs: listing.installs,
      stars: listing.stars,
      trending: listing.trending,
      // ARD metadata values are scalars: the provenance of each figure (real or synthetic) one key each.
      installsProvenance: listing.metrics.installs,
      starsProvenance: listing.metrics.stars,
      historyProvenance: listing.metrics.history,
      ...(listing.installCommand ? { installCommand: listing.installCommand } : {}),
    },
  };
  if (listing.version) entry.version = listing.version;
  return entry;
}

/** The registry's own entry (type application/ai-registry+json), for ai-catalog.json, ard.json and referrals. */
export function registryEntry(baseUrl: string): Record<string, unknown> {
  const host = new URL(baseUrl).hostname;
  return {
    identifier: `urn:air:${host}:registry:${BRAND}`,
    displayName: `${BRAND} agent registry`,
    type: ARD_REGISTRY_TYPE,
    url: baseUrl + ARD_BASE_PATH,
    description: `${TAGLINE} An ARD Agent Registry: POST ${ARD_PATHS.search}, POST ${ARD_PATHS.explore}, GET ${ARD_PATHS.agents}.`,
    tags: ['registry', 'search', 'dynamic', 'mcp', 'agent-skills'],
  };
}

const FilterValue = z.union([z.string(), z.array(z.string())]);
const Query = z.strictObject({ text: z.string().max(512).optional(), filter: z.record(z.string(), FilterValue).optional() });

export const ArdSearchRequestSchema = z.strictObject({
  query: Query.extend({ text: z.string().min(1).max(512) }),
  federation: z.enum(['auto', 'referrals', 'none']).default('auto'),
  pageSize: z.number().int().min(1).max(ARD_PAGE.max).default(ARD_PAGE.searchDefault),
  pageToken: z.string().max(512).optional(),
});
export type ArdSearchRequest = z.infer<typeof ArdSearchRequestSchema>;

export const ArdExploreRequestSchema = z.strictObject({
  query: Query.optional(),
  resultType: z.strictObject({
    facets: z
      .array(
        z.strictObject({
          field: z.string().min(1).max(128),
          limit: z.number().int().min(1).max(1000).default(FACET_LIMIT_DEFAULT),
          minCount: z.number().int().min(0).default(1),
        }),
      )
      .min(1)
      .max(10),
  }),
});
export type ArdExploreRequest = z.infer<typeof ArdExploreRequestSchema>;

/** Filter keys (§7.1) this registry supports; others are a 400 (§7.1 "MAY reject"). */
export const ARD_FILTER_FIELDS = ['type', 'publisher', 'capabilities', 'tags'] as const;
/** Fields Explore can facet on. */
export const ARD_FACET_FIELDS = ['type', 'publisher', 'capabilities', 'tags'] as const;

/** Appendix B error codes, by HTTP status. */
export const ARD_ERROR_CODES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_ERROR',
};

/**
 * The relevance score (§7.2, 0-100) of the result at `rank` (0-based) in the hybrid ranking: the search fuses
 * ranks, not calibrated similarities, so the score is the reciprocal-rank weight scaled to 100 at the top.
 */
export function relevanceScore(rank: number, k = 60): number {
  return Math.max(1, Math.round((100 * (k + 1)) / (k + 1 + rank)));
}
