// The MCP listings in the shape of the official MCP registry (modelcontextprotocol/registry, API 2025-12-01,
// `server.json`): one mapping from a Listing to a ServerResponse, shared by the /v0.1 routes and their tests.
// The official schema keeps `description` to 100 characters and has no place for our figures, so the full
// description, installs, stars and provenance go under our own reverse-DNS `_meta` key.
import { BRAND } from './brand.ts';
import type { Listing } from './schemas.ts';

/** Our namespace inside `_meta` (reverse DNS, as the registry asks of extensions). */
export const REGISTRY_META_KEY = `io.${BRAND}.registry/listing`;
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const REGISTRY_PAGE = { default: 30, max: 100 } as const;
const NAME_PREFIX = 'io.github.';
const DESCRIPTION_MAX = 100;

export interface RegistryPackage {
  registryType: 'npm' | 'pypi' | 'oci';
  registryBaseUrl: string;
  identifier: string;
  version?: string;
  runtimeHint?: string;
  transport: { type: 'stdio' };
}

export interface ServerResponse {
  server: {
    $schema: string;
    name: string;
    title: string;
    description: string;
    version: string;
    repository: { url: string; source: 'github' };
    websiteUrl: string;
    packages?: RegistryPackage[];
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

const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/** The package an install line runs (npx/npm, uvx/pip, docker run), in the registry's `packages` shape. */
export function packageOf(installCommand: string | undefined): RegistryPackage | undefined {
  if (!installCommand) return undefined;
  const words = installCommand.trim().split(/\s+/);
  const args = (from: number) => words.slice(from).filter((word) => !word.startsWith('-'));
  const withVersion = (spec: string, separator: '@' | '==') => {
    const at = separator === '@' ? spec.lastIndexOf('@') : spec.indexOf('==');
    if (at > 0) return { identifier: spec.slice(0, at), version: spec.slice(at + separator.length) };
    return { identifier: spec, version: undefined };
  };
  const make = (registryType: RegistryPackage['registryType'], registryBaseUrl: string, spec: { identifier: string; version: string | undefined }, runtimeHint?: string) => {
    const pkg: RegistryPackage = { registryType, registryBaseUrl, identifier: spec.identifier, transport: { type: 'stdio' } };
    if (spec.version && spec.version !== 'latest') pkg.version = spec.version;
    if (runtimeHint) pkg.runtimeHint = runtimeHint;
    return pkg;
  };
  const [command, sub] = words;
  if (command === 'npx' || (command === 'npm' && (sub === 'install' || sub === 'i' || sub === 'exec'))) {
    const spec = args(command === 'npx' ? 1 : 2)[0];
    if (!spec || !PACKAGE_NAME.test(withVersion(spec, '@').identifier)) return undefined;
    return make('npm', 'https://registry.npmjs.org', withVersion(spec, '@'), command === 'npx' ? 'npx' : undefined);
  }
  if (command === 'uvx' || (command === 'pip' && sub === 'install')) {
    const spec = args(command === 'uvx' ? 1 : 2)[0];
    if (!spec || !PACKAGE_NAME.test(withVersion(spec, '==').identifier)) return undefined;
    return make('pypi', 'https://pypi.org', withVersion(spec, '=='), command === 'uvx' ? 'uvx' : undefined);
  }
  if (command === 'docker' && sub === 'run') {
    // The image is the first word after the options; options that take a value make that ambiguous, so only
    // a line whose last word looks like an image is trusted.
    const image = words[words.length - 1]!;
    if (!/^[a-z0-9]+(?:[._/-][a-z0-9]+)*(?::[\w.-]+)?$/.test(image) || image === 'run') return undefined;
    const colon = image.lastIndexOf(':');
    const spec = colon > 0 ? { identifier: image.slice(0, colon), version: image.slice(colon + 1) } : { identifier: image, version: undefined };
    return make('oci', 'https://docker.io', spec, 'docker');
  }
  return undefined;
}

/** A served MCP listing (with url) as an official-registry ServerResponse. */
export function toServerResponse(listing: Listing): ServerResponse {
  const pkg = packageOf(listing.installCommand);
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
  if (pkg) server.packages = [pkg];
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
