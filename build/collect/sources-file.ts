// The sources file of `catalog collect` (YAML, see collect.sources.example.yaml): one zod schema, so the
// validation, the TypeScript types and the error messages come from one place. A bad file stops the collection
// with one message naming the entry and the field.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { REPO_PATTERN } from '../../src/domain/schemas.ts';

const Repo = z.string().regex(REPO_PATTERN, 'must be a GitHub owner/name');
/** A branch, a tag, or a commit (12 to 40 hex characters). */
const Ref = z
  .string()
  .min(1)
  .max(250)
  .regex(/^[^\s~^:?*[\\]+$/, 'must be a branch, tag or commit');

/** Bounds that keep an untrusted repository from filling the disk or the memory (docs/collecting.md). */
export const GitBoundsSchema = z
  .object({
    /** A file larger than this is not stored (its listing is kept; a SKILL.md larger than this is skipped). */
    maxFileBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024),
    /** Files stored per skill, SKILL.md included. */
    maxFilesPerSkill: z.number().int().positive().default(64),
    /** Bytes stored per skill. */
    maxSkillBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /** Tree entries read from one commit; a repository with more is skipped with a warning. */
    maxTreeEntries: z.number().int().positive().default(200_000),
    /** Folder depth of the recursive SKILL.md walk (the skills CLI's is 5). */
    maxDepth: z.number().int().positive().default(5),
    /** A remote clone larger than this (in KiB, as git counts it) is removed and the source is skipped. */
    maxCloneKiB: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /** Seconds a clone or fetch may take. */
    timeoutSeconds: z.number().int().positive().default(300),
  })
  .strict();
export type GitBounds = z.infer<typeof GitBoundsSchema>;

const base = {
  /** A name for the report and the state directory; default: kind and repository or URL. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:/@-]+$/, 'letters, digits and . _ : / @ - only')
    .max(200)
    .optional(),
  url: z.string().min(1),
};

export const GitSourceSchema = z
  .object({
    ...base,
    kind: z.literal('git'),
    /** The GitHub identity of the repository; required when `url` is a local path. */
    repo: Repo.optional(),
    ref: Ref.optional(),
    bounds: GitBoundsSchema.default(GitBoundsSchema.parse({})),
  })
  .strict();

export const AwesomeListSourceSchema = z
  .object({
    ...base,
    kind: z.literal('awesome-list'),
    repo: Repo.optional(),
    ref: Ref.optional(),
    /** The Markdown file of the list (or a folder of them, one per category, like TensorBlock's docs/). */
    path: z.string().min(1).default('README.md'),
    /** Category slug of every server of the list when its section names none. */
    category: z.string().optional(),
    bounds: GitBoundsSchema.default(GitBoundsSchema.parse({})),
  })
  .strict();

export const McpRegistrySourceSchema = z
  .object({
    ...base,
    kind: z.literal('mcp-registry'),
    /** Page size: the registry's maximum is 100. */
    limit: z.number().int().min(1).max(100).default(100),
    /** Pages read in one run at most (a cursor that loops is caught before this). */
    maxPages: z.number().int().positive().default(10_000),
    /** Milliseconds between requests: the registry asks aggregators to be polite (≤ 1-2 requests a second). */
    delayMs: z.number().int().nonnegative().default(500),
    timeoutSeconds: z.number().int().positive().default(30),
    retries: z.number().int().nonnegative().default(4),
  })
  .strict();

export const GithubSourceSchema = z
  .object({
    ...base,
    kind: z.literal('github'),
    /** Environment variable holding the token (optional: unauthenticated requests get 60 an hour). */
    tokenEnv: z.string().default('GITHUB_TOKEN'),
    /** `graphql`: 1 request per `batch` repositories (needs a token); `rest`: conditional GET per repository. */
    mode: z.enum(['auto', 'graphql', 'rest']).default('auto'),
    batch: z.number().int().min(1).max(100).default(50),
    concurrency: z.number().int().min(1).max(16).default(4),
    /** Requests this run may spend at most; below it the source stops cleanly and keeps last known values. */
    budget: z.number().int().positive().default(5000),
    timeoutSeconds: z.number().int().positive().default(30),
    retries: z.number().int().nonnegative().default(3),
  })
  .strict();

export const InstallsSourceSchema = z
  .object({
    ...base,
    kind: z.literal('installs'),
    /** Environment variable holding the skills.sh API key (optional). */
    keyEnv: z.string().default('SKILLS_API_KEY'),
    /** Leaderboard pages read at most (API URLs only). */
    maxPages: z.number().int().positive().default(500),
    timeoutSeconds: z.number().int().positive().default(30),
    retries: z.number().int().nonnegative().default(3),
  })
  .strict();

export const ExportSourceSchema = z.object({ ...base, kind: z.literal('export') }).strict();

export const SourceEntrySchema = z.discriminatedUnion('kind', [
  GitSourceSchema,
  AwesomeListSourceSchema,
  McpRegistrySourceSchema,
  GithubSourceSchema,
  InstallsSourceSchema,
  ExportSourceSchema,
]);
export type SourceEntry = z.infer<typeof SourceEntrySchema>;
export type GitSource = z.infer<typeof GitSourceSchema>;
export type AwesomeListSource = z.infer<typeof AwesomeListSourceSchema>;
export type McpRegistrySource = z.infer<typeof McpRegistrySourceSchema>;
export type GithubSource = z.infer<typeof GithubSourceSchema>;
export type InstallsSource = z.infer<typeof InstallsSourceSchema>;
export type ExportSource = z.infer<typeof ExportSourceSchema>;

export const SourcesFileSchema = z
  .object({
    sources: z.array(SourceEntrySchema).min(1),
    /** A source may remove at most this share of its previous listings in one collection (else --allow-shrink). */
    maxShrink: z.number().min(0).max(1).default(0.2),
  })
  .strict();
/** A source entry with its id settled (and, for git and awesome-list, its repository). */
export type ResolvedSource = SourceEntry & { id: string };
export type SourcesFile = Omit<z.infer<typeof SourcesFileSchema>, 'sources'> & { sources: ResolvedSource[] };

export class SourcesFileError extends Error {}

const isRemote = (url: string) => /^(https?|git|ssh):\/\/|^[\w.-]+@[\w.-]+:/.test(url);

/** The id a source goes by: its own, else kind and repository (or URL). */
export function sourceId(entry: SourceEntry): string {
  if (entry.id) return entry.id;
  const repo = 'repo' in entry && entry.repo ? entry.repo : undefined;
  const path = entry.kind === 'awesome-list' ? `:${entry.path}` : '';
  return `${entry.kind}:${repo ?? entry.url}${path}`;
}

/** The GitHub `owner/name` of a remote GitHub URL, or undefined. */
export function repoOfUrl(url: string): string | undefined {
  const match = /github\.com[/:]([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** Parse and validate a sources file's text; relative local paths are resolved against `baseDir`. */
export function parseSourcesFile(text: string, baseDir: string, where = 'sources file'): SourcesFile {
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: true });
  } catch (error) {
    throw new SourcesFileError(`${where}: not YAML (${(error as Error).message.split('\n')[0]})`);
  }
  const parsed = SourcesFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
    throw new SourcesFileError(`${where}: ${path.replace(/^\./, '') || 'file'}: ${issue.message}`);
  }
  const ids = new Set<string>();
  const sources = parsed.data.sources.map((entry, index) => {
    const url = isRemote(entry.url) || isAbsolute(entry.url) ? entry.url : resolve(baseDir, entry.url);
    const resolved: SourceEntry = { ...entry, url };
    if ((resolved.kind === 'git' || resolved.kind === 'awesome-list') && !resolved.repo) {
      const repo = isRemote(entry.url) ? repoOfUrl(entry.url) : undefined;
      if (!repo) throw new SourcesFileError(`${where}: sources[${index}].repo: required when url is not a GitHub URL (${entry.url})`);
      resolved.repo = repo;
    }
    const id = sourceId(resolved);
    if (ids.has(id)) throw new SourcesFileError(`${where}: sources[${index}]: a second source with id ${id} (give one an id:)`);
    ids.add(id);
    return { ...resolved, id } as ResolvedSource;
  });
  return { ...parsed.data, sources };
}

export function readSourcesFile(path: string): SourcesFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SourcesFileError(`cannot read sources file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseSourcesFile(text, dirname(resolve(path)), path);
}
