// One listing per identity: the keys a candidate or an existing record is known by. Two listings that share any key
// are the same listing. Files: type + repository + path. MCP servers also by registry name, package
// (registryType:identifier) and normalised remote URL, since one server is named by lists, the registry and its
// own repository in different ways (collect-sources.md §7: "GitHub owner/repo(+subfolder) → package → remote").
import type { Candidate } from './types.ts';
import { slugify } from './text.ts';

const lower = (text: string) => text.toLowerCase();

/** A remote URL without scheme, `www.`/`mcp.` host prefixes, query, fragment and trailing slash. */
export function normaliseRemoteUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.toLowerCase().replace(/^(www|mcp)\./, '');
    const path = parsed.pathname.replace(/\/+$/, '');
    return `${host}${parsed.port ? `:${parsed.port}` : ''}${path}`;
  } catch {
    return url.toLowerCase().replace(/\/+$/, '');
  }
}

/** A package named by an install line: npm (`npx -y`), PyPI (`uvx`, `pip install`), OCI (`docker run`). */
export function packageOfInstallLine(line: string | undefined): { registryType: string; identifier: string } | undefined {
  if (!line) return undefined;
  const npm = /^npx\s+(?:-y\s+|--yes\s+)?(@?[\w.-]+(?:\/[\w.-]+)?)/.exec(line);
  if (npm) return { registryType: 'npm', identifier: npm[1]!.replace(/@[\d^~][^/]*$/, '') };
  const pypi = /^(?:uvx|pipx\s+run|pip\s+install|pipx\s+install)\s+([\w.-]+)/.exec(line);
  if (pypi) return { registryType: 'pypi', identifier: pypi[1]! };
  const oci = /^docker\s+run\s+(?:-[-\w]+(?:[= ][^\s-][^\s]*)?\s+)*([\w./-]+(?::[\w.-]+)?)\s*$/.exec(line.replace(/\s+-e\s+\S+/g, ''));
  if (oci) return { registryType: 'oci', identifier: oci[1]!.replace(/:[\w.-]+$/, '') };
  return undefined;
}

/** The monorepo folder of a GitHub tree URL (`…/tree/<ref>/<folder>`), or undefined. */
export function subfolderOfUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const match = /github\.com\/[^/]+\/[^/]+\/tree\/[^/]+\/(.+?)\/?$/.exec(url);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/** Everything identity needs, from a candidate or from an export record alike. */
export interface IdentityInput {
  type: string;
  repo: string;
  name: string;
  path?: string;
  registryName?: string;
  packages?: Array<{ registryType: string; identifier: string }>;
  remotes?: Array<{ url: string }>;
  installCommand?: string;
  homepage?: string;
  marketplace?: string;
}

/**
 * The keys, strongest first. The first key is the listing's primary identity; a later key lets a listing found
 * another way (a skill known only by name from the leaderboard, an MCP server a list names by its repository)
 * meet the same listing.
 */
export function identityKeys(input: IdentityInput): string[] {
  const repo = lower(input.repo);
  const keys: string[] = [];
  switch (input.type) {
    case 'skill':
    case 'workflow':
      if (input.path) keys.push(`${input.type}|${repo}|${lower(input.path)}`);
      keys.push(`${input.type}|${repo}|name:${slugify(input.name)}`);
      break;
    case 'marketplace':
      keys.push(`marketplace|${repo}`);
      break;
    case 'plugin':
      keys.push(`plugin|${repo}|${lower(input.name.trim())}`);
      break;
    case 'mcp': {
      if (input.registryName) keys.push(`mcp|registry:${lower(input.registryName)}`);
      const sub = input.path && !/\.(md|json|ya?ml)$/i.test(input.path) ? input.path : subfolderOfUrl(input.homepage);
      keys.push(`mcp|${repo}|${lower(sub ?? '')}`);
      for (const pkg of input.packages ?? []) keys.push(`mcp|pkg:${lower(pkg.registryType)}:${lower(pkg.identifier)}`);
      const stated = packageOfInstallLine(input.installCommand);
      if (stated) keys.push(`mcp|pkg:${stated.registryType}:${lower(stated.identifier)}`);
      for (const remote of input.remotes ?? []) keys.push(`mcp|remote:${normaliseRemoteUrl(remote.url)}`);
      break;
    }
    default:
      keys.push(`${input.type}|${repo}|name:${slugify(input.name)}`);
  }
  return [...new Set(keys)];
}

/** A record's own id, the first key of a record an export holds: the export's records stay as many as they are. */
const idKey = (id: unknown) => (typeof id === 'string' ? [`id:${id}`] : []);

export function candidateKeys(candidate: Candidate): string[] {
  return [...idKey(candidate.record?.id ?? candidate.recordId), ...identityKeys(candidate)];
}

/** The identity of an export record (its source.path is the file it came from, for skills and workflows). */
export function recordKeys(record: Record<string, unknown>): string[] {
  const source = (record.source ?? {}) as { repo?: string; path?: string };
  const type = String(record.type);
  // A record's source.path names its own file only when the source repository is the listing's repository.
  const ownFile = source.repo && source.path && source.repo.toLowerCase() === String(record.repo).toLowerCase() ? source.path : undefined;
  return [
    ...idKey(record.id),
    ...identityKeys({
      type,
      repo: String(record.repo),
      name: String(record.name),
      path: type === 'skill' || type === 'workflow' ? ownFile : undefined,
      registryName: typeof record.registryName === 'string' ? record.registryName : undefined,
      packages: record.packages as IdentityInput['packages'],
      remotes: record.remotes as IdentityInput['remotes'],
      installCommand: typeof record.installCommand === 'string' ? record.installCommand : undefined,
      homepage: typeof record.homepage === 'string' ? record.homepage : undefined,
    }),
  ];
}
