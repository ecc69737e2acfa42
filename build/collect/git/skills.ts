// Skills of a repository, found where the `skills` CLI finds them (vercel-labs/skills src/skills.ts,
// discoverSkills, and src/plugin-manifest.ts; research: collect-sources.md §2):
//   1. a SKILL.md at the root is the repository's one skill;
//   2. else the direct children of the root, skills/, skills/.curated|.experimental|.system, .agent/skills,
//      .agents/skills, .claude/skills and each agent's .<agent>/skills, then the folders the plugin manifests
//      name (.claude-plugin/marketplace.json local `./` sources under metadata.pluginRoot, plugins[].skills;
//      .claude-plugin/plugin.json skills);
//   3. then a walk of the whole tree to maxDepth (the CLI walks only when 2 finds nothing; the catalog lists every
//      skill a repository holds, as the snapshot did).
// A skill is valid with a name and a description (the name falls back to its folder, with a warning); two skills of
// one name are both listed, with a warning (the CLI installs the first). Its stored files are SKILL.md, then the
// folder's other text files.
import { posix } from 'node:path';
import type { CandidateFile } from '../types.ts';
import type { GitBounds } from '../sources-file.ts';
import { isRecord, parseFrontMatter } from './front-matter.ts';
import { MARKETPLACE_PATH, PLUGIN_PATH } from './plugins.ts';
import { describeRead, joinInside, type Snapshot, type Warn } from './commit-tree.ts';

/** The agents whose `.<agent>/skills` folder the CLI reads (collect-sources.md §2, in the CLI's order). */
export const AGENT_FOLDERS = [
  'cline',
  'codebuddy',
  'codex',
  'commandcode',
  'continue',
  'cursor',
  'github',
  'goose',
  'iflow',
  'junie',
  'kilocode',
  'kiro',
  'mux',
  'neovate',
  'opencode',
  'openhands',
  'pi',
  'qoder',
  'roo',
  'trae',
  'windsurf',
  'zencoder',
] as const;

export const PRIORITY_DIRS = [
  '',
  'skills',
  'skills/.curated',
  'skills/.experimental',
  'skills/.system',
  '.agent/skills',
  '.agents/skills',
  '.claude/skills',
  ...AGENT_FOLDERS.map((agent) => `.${agent}/skills`),
];

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'build', '__pycache__']);
const SKILL_FILES = ['SKILL.md', 'skill.md'];

/** Not stored, not even read: binary formats, and generated text no one reads (the reference snapshot's list). */
const BINARY_EXTENSIONS = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.ico',
  '.pdf',
  '.zip',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.mp3',
  '.mp4',
  '.wav',
  '.docx',
  '.xlsx',
  '.pptx',
  '.jar',
  '.bin',
  '.so',
  '.pyc',
  '.svg',
  '.lock',
  '.gz',
  '.tgz',
  '.exe',
  '.dll',
]);
/** Stored file names: plain characters, no hidden file or folder (`.env` is not a skill's to publish). */
const STORABLE_PATH = /^[A-Za-z0-9._/+@ -]+$/;

export interface SkillFound {
  /** The SKILL.md path. */
  path: string;
  name: string;
  description: string;
  author?: string;
  tags: string[];
  files: CandidateFile[];
}

const parentOf = (path: string) => (posix.dirname(path) === '.' ? '' : posix.dirname(path));

const skillFileIn = (snapshot: Snapshot, dir: string) => SKILL_FILES.map((name) => (dir ? `${dir}/${name}` : name)).find((path) => snapshot.files.has(path));

/** Folders the plugin manifests point at, for the child scan (plugin-manifest.ts: local `./` paths only). */
async function pluginSkillDirs(snapshot: Snapshot): Promise<string[]> {
  const dirs: string[] = [];
  const add = (pluginBase: string, skills: unknown) => {
    if (Array.isArray(skills)) {
      for (const skill of skills) {
        if (typeof skill !== 'string' || !skill.startsWith('./')) continue;
        const path = joinInside(pluginBase, skill);
        if (path) dirs.push(parentOf(path));
      }
    }
    dirs.push(pluginBase ? `${pluginBase}/skills` : 'skills');
  };
  // Silent on a manifest that cannot be read: plugins.ts reads the same files and warns once.
  const readJson = async (path: string): Promise<unknown> => {
    const read = await snapshot.read(path);
    if (read.kind !== 'text') return undefined;
    try {
      return JSON.parse(read.text) as unknown;
    } catch {
      return undefined;
    }
  };
  const marketplace = await readJson(MARKETPLACE_PATH);
  if (isRecord(marketplace)) {
    const pluginRoot = isRecord(marketplace.metadata) ? marketplace.metadata.pluginRoot : undefined;
    const root = pluginRoot === undefined ? '' : typeof pluginRoot === 'string' && pluginRoot.startsWith('./') ? joinInside('', pluginRoot) : undefined;
    for (const plugin of root !== undefined && Array.isArray(marketplace.plugins) ? marketplace.plugins : []) {
      if (!isRecord(plugin)) continue;
      const source = plugin.source;
      if (source !== undefined && (typeof source !== 'string' || !source.startsWith('./'))) continue;
      const base = joinInside(root!, source ?? '.');
      if (base !== undefined) add(base, plugin.skills);
    }
  }
  const plugin = await readJson(PLUGIN_PATH);
  if (isRecord(plugin)) add('', plugin.skills);
  return dirs;
}

interface Discovery {
  snapshot: Snapshot;
  bounds: GitBounds;
  warn: Warn;
  found: SkillFound[];
  names: Set<string>;
  visited: Set<string>;
  /** Folders holding a SKILL.md anywhere in the tree: their files are not another skill's bundled files. */
  skillDirs: Set<string>;
}

/** Reads the skill in `dir` if it has a SKILL.md; true when a valid skill was added. */
async function trySkill(state: Discovery, dir: string): Promise<boolean> {
  const path = skillFileIn(state.snapshot, dir);
  if (!path || state.visited.has(path)) return false;
  state.visited.add(path);
  const skill = await readSkill(state, dir, path);
  if (!skill) return false;
  // The skills CLI installs the first of two same-named skills; the catalog lists each file, as the snapshot did.
  if (state.names.has(skill.name)) state.warn(path, `a skill named ${skill.name} was found first elsewhere; \`--skill ${skill.name}\` installs that one`);
  state.names.add(skill.name);
  state.found.push(skill);
  return true;
}

async function readSkill(state: Discovery, dir: string, path: string): Promise<SkillFound | undefined> {
  const { snapshot, warn } = state;
  const read = await snapshot.read(path);
  if (read.kind !== 'text') {
    warn(path, `skipped: SKILL.md is ${describeRead(read, snapshot.maxFileBytes)}`);
    return undefined;
  }
  if (read.invalidUtf8) warn(path, 'invalid UTF-8, read with replacement characters');
  const front = parseFrontMatter(read.text);
  if (!front.ok) {
    warn(path, `skipped: front matter is not YAML (${front.error})`);
    return undefined;
  }
  if (!front.present) {
    warn(path, 'skipped: no front matter (--- name/description ---)');
    return undefined;
  }
  for (const key of front.repaired) warn(path, `unquoted ': ' in ${key}: read as a quoted string`);
  const data = front.data;
  const metadata = isRecord(data.metadata) ? data.metadata : {};
  if (metadata.internal === true) {
    warn(path, 'skipped: metadata.internal is true (hidden by the skills CLI)');
    return undefined;
  }
  const description = Array.isArray(data.description)
    ? data.description.map(String).join(' ')
    : typeof data.description === 'string'
      ? data.description
      : undefined;
  if (!description?.trim()) {
    warn(path, 'skipped: no description in the front matter');
    return undefined;
  }
  const folder = posix.basename(dir);
  let name = typeof data.name === 'string' || typeof data.name === 'number' ? String(data.name).trim() : '';
  if (!name) {
    if (!folder) {
      warn(path, 'skipped: no name in the front matter');
      return undefined;
    }
    warn(path, `no name in the front matter: named after its folder (${folder})`);
    name = folder;
  } else if (folder && name !== folder) {
    warn(path, `name ${name} differs from its folder ${folder} (kept)`);
  }
  const rawTags = data.tags ?? metadata.tags;
  const tags =
    typeof rawTags === 'string'
      ? rawTags.split(/[,\s]+/).filter(Boolean)
      : Array.isArray(rawTags)
        ? rawTags.filter((tag) => typeof tag === 'string' || typeof tag === 'number').map(String)
        : [];
  const author = [data.author, metadata.author].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const files = await storedFiles(state, dir, path, read.text);
  return { path, name, description, ...(author ? { author } : {}), tags, files };
}

/** SKILL.md, then the folder's text files in path order, within the bounds; what is left out is said once. */
async function storedFiles(state: Discovery, dir: string, skillPath: string, skillText: string): Promise<CandidateFile[]> {
  const { snapshot, bounds } = state;
  const files: CandidateFile[] = [{ path: posix.basename(skillPath), content: skillText }];
  // A root skill's folder is the whole repository: its other files are the project's, not the skill's.
  if (dir === '') return files;
  let bytes = Buffer.byteLength(skillText);
  const left: Record<string, string[]> = {};
  const leave = (why: string, path: string) => (left[why] ??= []).push(path);
  for (const entry of snapshot.filesUnder(dir)) {
    if (entry.path === skillPath) continue;
    const relative = entry.path.slice(dir.length + 1);
    if (insideNestedSkill(state.skillDirs, dir, entry.path)) continue;
    if (!STORABLE_PATH.test(relative) || relative.split('/').some((part) => part.startsWith('.'))) {
      leave('hidden or oddly named', relative);
      continue;
    }
    if (BINARY_EXTENSIONS.has(posix.extname(relative).toLowerCase())) {
      leave('not stored by extension', relative);
      continue;
    }
    if (files.length >= bounds.maxFilesPerSkill) {
      leave(`beyond maxFilesPerSkill (${bounds.maxFilesPerSkill})`, relative);
      continue;
    }
    if (bytes + entry.size > bounds.maxSkillBytes) {
      leave(`beyond maxSkillBytes (${bounds.maxSkillBytes})`, relative);
      continue;
    }
    const read = await snapshot.read(entry.path);
    if (read.kind !== 'text') {
      leave(read.kind === 'too-large' ? `over maxFileBytes (${bounds.maxFileBytes})` : describeRead(read, bounds.maxFileBytes), relative);
      continue;
    }
    if (read.invalidUtf8) state.warn(entry.path, 'invalid UTF-8, stored with replacement characters');
    files.push({ path: relative, content: read.text });
    bytes += read.bytes;
  }
  const reasons = Object.entries(left);
  if (reasons.length > 0) {
    const said = reasons.map(([why, paths]) => `${paths.length} ${why} (${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''})`);
    state.warn(skillPath, `files not stored: ${said.join('; ')}`);
  }
  return files;
}

function insideNestedSkill(skillDirs: Set<string>, dir: string, path: string): boolean {
  for (let parent = posix.dirname(path); parent !== dir && parent !== '.' && parent.length > dir.length; parent = posix.dirname(parent)) {
    if (skillDirs.has(parent)) return true;
  }
  return false;
}

/** The skills of one commit, in discovery order. */
export async function findSkills(snapshot: Snapshot, bounds: GitBounds, warn: Warn): Promise<SkillFound[]> {
  const skillDirs = new Set<string>();
  for (const path of snapshot.files.keys()) {
    const base = posix.basename(path);
    if (SKILL_FILES.includes(base)) skillDirs.add(parentOf(path));
  }
  const state: Discovery = { snapshot, bounds, warn, found: [], names: new Set(), visited: new Set(), skillDirs };
  if (await trySkill(state, '')) return state.found;
  for (const dir of [...PRIORITY_DIRS, ...(await pluginSkillDirs(snapshot))]) {
    for (const child of snapshot.childDirs(dir)) await trySkill(state, dir ? `${dir}/${child}` : child);
  }
  // Then the bounded walk, always: plugin and nested layouts (plugins/*/skills/*) hold most skills of the large
  // repositories, and a directory lists what a repository holds, not only what the CLI's first pass sees.
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > bounds.maxDepth) return;
    await trySkill(state, dir);
    for (const child of snapshot.childDirs(dir)) {
      if (!SKIP_DIRS.has(child)) await walk(dir ? `${dir}/${child}` : child, depth + 1);
    }
  };
  await walk('', 0);
  return state.found;
}
