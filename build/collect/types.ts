// The collector's shared vocabulary: what a source adapter returns (candidates plus provenance and counters),
// what it is given (a context with its own state directory), and the identity every candidate is merged by.
// Each source kind is one module under sources/ behind `ListingSource` or `FigureSource`; fetching (git, HTTP) is
// kept apart from parsing so parsers are tested on fixtures and fetchers on local repositories and servers.
import type { ListingType } from '../../src/domain/listing/listing-types.ts';
import type { McpPackage, McpRemote } from '../../src/domain/schemas.ts';

/** A stored file of a skill: its path relative to the skill's folder (SKILL.md first) and its text. */
export interface CandidateFile {
  path: string;
  content: string;
}

/** A measured figure with where and when it was measured. */
export interface Figure {
  value: number;
  /** YYYY-MM-DD */
  asOf: string;
  /** A short source name, e.g. `github`, `skills.sh`, `export`. */
  source: string;
}

/** One listing as one source read it, before merging. Every field but type, name, repo is optional. */
export interface Candidate {
  type: ListingType;
  /** The name as the source gives it (a SKILL.md `name`, a plugin name with spaces, a registry title). */
  name: string;
  description?: string;
  /** GitHub `owner/repo`, in GitHub's case. */
  repo: string;
  /** Stated author (SKILL.md `author`, plugin `author.name`); the merge falls back to the repo owner. */
  author?: string;
  /** Path of the file the listing comes from, relative to the repository root (skills, workflows, manifests). */
  path?: string;
  /** Commit read, 12 hex characters. */
  commit?: string;
  /** ISO date-time: the last commit that touched the listing's file, or the source's own update time. */
  updatedAt?: string;
  /** ISO date-time: the first commit that touched the listing's file at its path, when the history was read whole. */
  firstCommitAt?: string;
  tags?: string[];
  /** Category slugs a source stated (awesome-list sections, an export's category); the merge classifies the rest. */
  categories?: string[];
  homepage?: string;
  /** An install line a source states verbatim (an awesome list's quoted command); derived lines are the build's. */
  installCommand?: string;
  /** Plugins: the marketplace name; marketplaces: how many plugins. */
  marketplace?: string;
  pluginCount?: number;
  version?: string;
  /** Plugins listed by a marketplace with a remote `source` (github, url, git-subdir, npm): recorded as given. */
  pluginSource?: Record<string, unknown>;
  /** Skills: SKILL.md and bundled text files within the git source's bounds. */
  files?: CandidateFile[];
  /** MCP servers: the registry name, packages, remotes and status. */
  registryName?: string;
  packages?: McpPackage[];
  remotes?: McpRemote[];
  status?: 'active' | 'deprecated';
  installs?: Figure;
  stars?: Figure;
  /** The file the listing was read from when it is not the listing's own (an awesome list naming a server). */
  origin?: { repo: string; path: string; commit?: string };
  /** Other lists that named the same server. */
  alsoListedIn?: string[];
  /** The export source only: the record as the export holds it, passed through field by field. */
  record?: Record<string, unknown>;
  /**
   * The export source: the same record as JSON text, parsed only while its listing is merged (a large export then
   * costs its bytes, not its objects), with its id for identity.
   */
  recordJson?: string;
  /** The same text, read from the export file when asked (a large export is never held); not saved in state. */
  recordAt?: () => string;
  recordId?: string;
}

/** A warning about one record: which file (or URL) and why; the record was read leniently or skipped. */
export interface SourceWarning {
  where: string;
  message: string;
}

/** Counters every source reports (the collect --json report prints them per source). */
export interface SourceStats {
  requests: number;
  notModified: number;
  rateLimitWaits: number;
  warnings: SourceWarning[];
}

export function emptyStats(): SourceStats {
  return { requests: 0, notModified: 0, rateLimitWaits: 0, warnings: [] };
}

/**
 * What a listing source read. `ok`: the candidates are the source's whole current content, so a listing of
 * this source that is missing from them may be removed, but only within `scope` (the git source: a file gone from
 * a repository read at a newer commit) or when named in `removed` (the registry: status `deleted`).
 * `failed`: nothing it read counts as evidence; the merge keeps the source's previous listings.
 */
export interface ListingSourceResult {
  status: 'ok' | 'failed';
  /** Why it failed (network, 5xx, timeout, unreadable file, bound exceeded). */
  error?: string;
  candidates: Candidate[];
  /** Listings positively removed upstream (registry status `deleted`): the merge removes whatever they identify. */
  removed: Candidate[];
  /**
   * Removal by absence: a previous listing of this source whose identity is not among the candidates is removed
   * only when `absenceIsRemoval` is true (a git repository read successfully at a commit newer than the one the
   * previous listing names, an awesome list read in full). Incremental sources (registry `updated_since`) leave it false.
   */
  absenceIsRemoval: boolean;
  /** The commit read (git, awesome-list), 12 hex. */
  commit?: string;
  /**
   * The source is as its last successful run read it (the same commit, the same settings): `candidates` is empty
   * and the collector takes the last run's. Lets a daily run skip reading a repository that did not move.
   */
  unchanged?: boolean;
  stats: SourceStats;
}

/** Repository metadata from the github source. */
export interface RepoMeta {
  /** As requested (the key of the map). */
  repo: string;
  /** The current full name when GitHub answered with another (a renamed or transferred repository). */
  fullName: string;
  stars: number;
  archived: boolean;
  pushedAt?: string;
  license?: string;
  /** YYYY-MM-DD the figures were read (or confirmed by a 304). */
  asOf: string;
  /** The repository no longer exists (404): its listings keep their last known figures. */
  missing?: boolean;
}

/** Install counts from the installs source, keyed by `owner/repo` and skill name. */
export interface InstallCount {
  repo: string;
  skill: string;
  installs: number;
  asOf: string;
  source: string;
}

export interface SourceContext {
  /** This source's own state directory (ETags, high-water marks, clones), created by the collector. */
  stateDir: string;
  /** The collection's time: every asOf date and confirmation date comes from it (tests fix it). */
  now: Date;
  /** Progress and warnings meant for a person (a line each); the --json report carries warnings too. */
  log(message: string): void;
  signal?: AbortSignal;
  /** Environment the source may read tokens and keys from (GITHUB_TOKEN, SKILLS_API_KEY). */
  env: Record<string, string | undefined>;
  /** The commit the last successful run read, when the source's settings have not changed since (12 hex). */
  previousCommit?: string;
  /** Runs `close` once the collection is over (files a source keeps open for its candidates' text). */
  defer?(close: () => void): void;
}
