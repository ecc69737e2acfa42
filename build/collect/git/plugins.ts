// Claude Code marketplaces and plugins of a repository (research: collect-sources.md §3). The root
// .claude-plugin/marketplace.json is one marketplace and one plugin per entry; an entry's local source
// (`./dir`, and leniently `.`, `./` and bare names under metadata.pluginRoot) fills its missing fields from
// `<dir>/.claude-plugin/plugin.json`; a remote source (github, url, git-subdir, npm, or a kind not known yet) is
// recorded as given, never dropped: older clients failed whole marketplaces on kinds they did not know.
// Without a marketplace, a root .claude-plugin/plugin.json is one plugin.
import type { Candidate } from '../types.ts';
import { isRecord } from './front-matter.ts';
import { describeRead, joinInside, type Snapshot, type Warn } from './commit-tree.ts';

export const MARKETPLACE_PATH = '.claude-plugin/marketplace.json';
export const PLUGIN_PATH = '.claude-plugin/plugin.json';
const REMOTE_KINDS = new Set(['github', 'url', 'git-subdir', 'npm']);

/** A marketplace or plugin as found, before the repository, commit and date are added. */
export type ManifestFound = Omit<Candidate, 'repo' | 'commit' | 'updatedAt'> & {
  /** The file whose last commit dates the listing. */
  datePath: string;
};

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const authorName = (value: unknown): string | undefined => (isRecord(value) ? text(value.name) : text(value));
const keywords = (manifest: Record<string, unknown>): string[] | undefined => {
  const list = Array.isArray(manifest.keywords) ? manifest.keywords : Array.isArray(manifest.tags) ? manifest.tags : undefined;
  return list?.filter((item) => typeof item === 'string' || typeof item === 'number').map(String);
};

async function readJson(snapshot: Snapshot, path: string, warn: Warn): Promise<Record<string, unknown> | undefined> {
  const read = await snapshot.read(path);
  if (read.kind === 'missing') return undefined;
  if (read.kind !== 'text') {
    warn(path, `skipped: ${describeRead(read, snapshot.maxFileBytes)}`);
    return undefined;
  }
  if (read.invalidUtf8) warn(path, 'invalid UTF-8, read with replacement characters');
  try {
    const value: unknown = JSON.parse(read.text.replace(/^\uFEFF/, ''));
    if (isRecord(value)) return value;
    warn(path, 'skipped: not a JSON object');
  } catch (error) {
    warn(path, `skipped: not JSON (${(error as Error).message})`);
  }
  return undefined;
}

/** The fields a plugin manifest states, as candidate fields. */
function pluginFields(manifest: Record<string, unknown>): Partial<Candidate> {
  const fields: Partial<Candidate> = {};
  const description = text(manifest.description);
  if (description) fields.description = description;
  const version = text(manifest.version);
  if (version) fields.version = version;
  const author = authorName(manifest.author);
  if (author) fields.author = author;
  const tags = keywords(manifest);
  if (tags && tags.length > 0) fields.tags = tags;
  const homepage = text(manifest.homepage);
  if (homepage) fields.homepage = homepage;
  return fields;
}

/**
 * Where a marketplace entry's plugin lives in this repository, or its remote source as given. Local forms:
 * `./dir` (the schema's), `.` and `./` (accepted with a warning: real marketplaces use them), and a bare folder
 * name when metadata.pluginRoot is set (the documented shorthand).
 */
function locate(source: unknown, pluginRoot: string | undefined, warn: (message: string) => void): { dir: string } | { remote: Record<string, unknown> } {
  if (typeof source === 'string') {
    const root = pluginRoot ? (joinInside('', pluginRoot) ?? '') : '';
    if (source === '.' || source === './') {
      warn(`source ${JSON.stringify(source)} is the marketplace root: read as the root folder`);
      return { dir: root };
    }
    const local = source.startsWith('./') || (pluginRoot !== undefined && !source.includes(':') && !source.startsWith('/'));
    const dir = local ? joinInside(root, source) : undefined;
    if (dir !== undefined) return { dir };
    warn(`source ${JSON.stringify(source)} is not a ./ path inside the repository: recorded as given`);
    return { remote: { source } };
  }
  if (isRecord(source)) {
    const kind = source.source;
    if (typeof kind !== 'string' || !REMOTE_KINDS.has(kind))
      warn(`source kind ${JSON.stringify(kind)} is not one known (github, url, git-subdir, npm): recorded as given`);
    return { remote: source };
  }
  warn(`source ${JSON.stringify(source)} is neither a path nor an object: recorded as given`);
  return { remote: { source: source ?? null } };
}

async function readMarketplace(snapshot: Snapshot, manifest: Record<string, unknown>, repoName: string, warn: Warn): Promise<ManifestFound[]> {
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
  let name = text(manifest.name);
  if (!name) {
    warn(MARKETPLACE_PATH, `no name: named after the repository (${repoName})`);
    name = repoName;
  }
  const entries = Array.isArray(manifest.plugins) ? manifest.plugins : [];
  if (!Array.isArray(manifest.plugins)) warn(MARKETPLACE_PATH, 'no plugins array');
  const marketplace: ManifestFound = { type: 'marketplace', name, path: MARKETPLACE_PATH, datePath: MARKETPLACE_PATH, pluginCount: entries.length };
  const description = text(metadata.description) ?? text(manifest.description);
  if (description) marketplace.description = description;
  const owner = authorName(manifest.owner);
  if (owner) marketplace.author = owner;
  const version = text(metadata.version) ?? text(manifest.version);
  if (version) marketplace.version = version;
  const pluginRoot = text(metadata.pluginRoot);
  const found: ManifestFound[] = [marketplace];
  const names = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const pluginName = isRecord(entry) ? (typeof entry.name === 'number' ? String(entry.name) : text(entry.name)) : undefined;
    if (!isRecord(entry) || !pluginName) {
      warn(`${MARKETPLACE_PATH}#${index}`, 'skipped: a plugin entry without a name');
      continue;
    }
    const where = `${MARKETPLACE_PATH}#${pluginName}`;
    const say = (message: string) => warn(where, message);
    if (names.has(pluginName)) {
      say(`a second plugin named ${pluginName}: only the first is listed`);
      continue;
    }
    names.add(pluginName);
    if (/\s/.test(pluginName)) say(`plugin name ${JSON.stringify(pluginName)} has spaces (kept as given)`);
    const plugin: ManifestFound = { type: 'plugin', name: pluginName, path: where, datePath: MARKETPLACE_PATH, marketplace: name, ...pluginFields(entry) };
    const category = text(entry.category);
    if (category) plugin.categories = [category];
    const location = locate(entry.source, pluginRoot, say);
    if ('remote' in location) {
      plugin.pluginSource = location.remote;
    } else {
      const own = await readJson(snapshot, location.dir ? `${location.dir}/${PLUGIN_PATH}` : PLUGIN_PATH, warn);
      // The marketplace entry wins: it is what `/plugin install` shows; plugin.json fills what it leaves out.
      if (own) for (const [key, value] of Object.entries(pluginFields(own))) (plugin as Record<string, unknown>)[key] ??= value;
    }
    found.push(plugin);
  }
  return found;
}

/** The marketplace and plugins of one commit. `repoName` names what has no name of its own. */
export async function findPlugins(snapshot: Snapshot, repoName: string, warn: Warn): Promise<ManifestFound[]> {
  const marketplace = await readJson(snapshot, MARKETPLACE_PATH, warn);
  if (marketplace) return readMarketplace(snapshot, marketplace, repoName, warn);
  if (snapshot.files.has(MARKETPLACE_PATH)) return [];
  const plugin = await readJson(snapshot, PLUGIN_PATH, warn);
  if (!plugin) return [];
  let name = typeof plugin.name === 'number' ? String(plugin.name) : text(plugin.name);
  if (!name) {
    warn(PLUGIN_PATH, `no name: named after the repository (${repoName})`);
    name = repoName;
  }
  if (/\s/.test(name)) warn(PLUGIN_PATH, `plugin name ${JSON.stringify(name)} has spaces (kept as given)`);
  return [{ type: 'plugin', name, path: PLUGIN_PATH, datePath: PLUGIN_PATH, ...pluginFields(plugin) }];
}
