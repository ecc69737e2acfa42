// The MCP listings in the shape of the official MCP registry (modelcontextprotocol/registry, API 2025-12-01,
// `server.json`): one mapping from a Listing to a ServerResponse, shared by the /v0.1 routes and their tests.
// The official schema keeps `description` to 100 characters and has no place for our figures, so the full
// description, installs, stars and provenance go under our own reverse-DNS `_meta` key.
import { BRAND } from '../brand.ts';
import type { Listing, McpPackage, McpRemote } from '../schemas.ts';

export { packageOf } from '../listing/install-line.ts';

/** Our namespace inside `_meta` (reverse DNS, as the registry asks of extensions). */
export const REGISTRY_META_KEY = `io.${BRAND}.registry/listing`;
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const REGISTRY_PAGE = { default: 30, max: 100 } as const;
const NAME_PREFIX = 'io.github.';
const DESCRIPTION_MAX = 100;

export interface ServerResponse {
  server: {
    $schema: string;
    name: string;
    title: string;
    description: string;
    version: string;
    repository: { url: string; source: 'github' };
    websiteUrl: string;
    packages?: McpPackage[];
    remotes?: McpRemote[];
  };
  _meta: Record<string, unknown>;
}

/** `io.github.{owner}/{slug}`: the owner namespace the official registry gives GitHub-authenticated publishers. */
export function serverName(listing: Pick<Listing, 'repo' | 'slug'>): string {
  return `${NAME_PREFIX}${listing.repo.slice(0, listing.repo.indexOf('/'))}/${listing.slug}`;
}

/** The owner and listing slug of a server name, or undefined when it is not one of ours. */
export function parseServerName(name: string): { owner: string; slug: string } | undefined {
  const match = /^io\.github\.([A-Za-z0-9-]+)\/([a-z0-9]+(?:-[a-z0-9]+)*)$/.exec(name);
  return match ? { owner: match[1]!, slug: match[2]! } : undefined;
}

/**
 * The catalog holds one record per server, not its release history: the version is the listing's own when a
 * source gave one, else the date of its last update as a calendar version (2026.8.22), which sorts like
 * the updates do.
 */
export function serverVersion(listing: Pick<Listing, 'version' | 'updatedAt'>): string {
  if (listing.version && listing.version !== 'latest') return listing.version;
  const date = new Date(listing.updatedAt);
  return `${date.getUTCFullYear()}.${date.getUTCMonth() + 1}.${date.getUTCDate()}`;
}

function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** A served MCP listing (with url) as an official-registry ServerResponse. */
export function toServerResponse(listing: Listing): ServerResponse {
  const description = shorten(listing.description, DESCRIPTION_MAX) || shorten(`MCP server ${listing.name} from ${listing.repo}`, DESCRIPTION_MAX);
  const server: ServerResponse['server'] = {
    $schema: SERVER_JSON_SCHEMA,
    name: serverName(listing),
    title: shorten(listing.name, DESCRIPTION_MAX),
    description,
    version: serverVersion(listing),
    repository: { url: listing.repoUrl, source: 'github' },
    websiteUrl: listing.homepage && /^https?:\/\//.test(listing.homepage) ? listing.homepage : listing.url,
  };
  // The listing carries what a source published (the registry's packages and remotes) or what its install line runs.
  if (listing.packages && listing.packages.length > 0) server.packages = listing.packages;
  if (listing.remotes && listing.remotes.length > 0) server.remotes = listing.remotes;
  return {
    server,
    _meta: {
      [REGISTRY_META_KEY]: {
        id: listing.id,
        slug: listing.slug,
        url: listing.url,
        description: listing.description,
        category: listing.category,
        categories: listing.categories,
        tags: listing.tags,
        installs: listing.installs,
        stars: listing.stars,
        trending: listing.trending,
        metrics: listing.metrics,
        installCommand: listing.installCommand,
        updatedAt: listing.updatedAt,
        isLatest: true,
        status: 'active',
      },
    },
  };
}
