// Merge: every source's candidates → one export record per identity (identity.ts), with fields chosen by source
// precedence, a provenance per figure, and the id and slug a listing had in the previous collection. Pure: the
// collector reads sources and state, this decides what the export holds (docs/collecting.md, "Merge").
import type { Candidate, InstallCount, RepoMeta } from './types.ts';
import type { McpPackage } from '../../src/domain/schemas.ts';
import { candidateKeys, recordKeys } from './identity.ts';
import { cleanText, detach, NAME_MAX, slugify } from './text.ts';
import { categoryOfHeading } from './awesome-list-parser.ts';
import { CATEGORY_LABELS } from '../../src/domain/listing/categories.ts';

/** Field precedence, strongest first: a repository's own files, the registry, lists, then an existing export. */
export const SOURCE_PRECEDENCE = ['git', 'mcp-registry', 'awesome-list', 'export'] as const;
export type ListingSourceKind = (typeof SOURCE_PRECEDENCE)[number];

/** One listing source's candidates as the merge sees them. */
export interface SourceCandidates {
  sourceId: string;
  kind: ListingSourceKind;
  candidates: Candidate[];
  /** Set when the source failed this time: its candidates are the last successful run's, confirmed that day. */
  confirmedAt?: string;
}

export interface MergeInput {
  sources: SourceCandidates[];
  /** The previous collection's export, in its order (ids, slugs and carried figures come from it). */
  previous: PreviousExport;
  /** Repository metadata by lower-case owner/name. */
  repoMeta: Map<string, RepoMeta>;
  /** Install counts by lower-case `owner/repo|skill-name`. */
  installs: Map<string, InstallCount>;
  now: Date;
  /** Where settled records are written as they are made (line-file.ts Spool); without one they stay in memory. */
  spool?: SpoolLike;
}

/**
 * The previous export, read record by record (line-file.ts keeps it on disk: a large catalog's previous export
 * costs its line offsets, not its text or objects).
 */
export interface PreviousExport {
  readonly count: number;
  /** The JSON text of record `index`. */
  read(index: number): string;
  /** The identity keys the last collection stored for record `index` (kept in export order), when they are its id's. */
  storedKeys?(index: number, id: string): string[];
}

/** A previous export held in memory (tests, small catalogs). */
export function previousExportOf(lines: string[]): PreviousExport {
  return { count: lines.length, read: (index) => lines[index]! };
}

export interface SpoolHandle {
  offset: number;
  length: number;
}

export interface SpoolLike {
  append(text: string): SpoolHandle;
  read(at: SpoolHandle): string;
}

export interface MergedListing {
  /**
   * The record; once its id and category are settled, only `{id, slug, type, category, confirmedAt}`, the whole
   * record being its export line (`json`, or `at` in the spool), so a large collection holds no record objects.
   */
  record: Record<string, unknown>;
  json?: string;
  at?: SpoolHandle;
  /** Against the previous export: a new id, the same id with another line, or the same line. */
  change: 'added' | 'changed' | 'kept';
  /** Every identity key of the listing's members: stored, so the next collection finds it whatever changed. */
  keys: string[];
  /** Stored files, SKILL.md first, under files/<slug>/. */
  files: Array<{ path: string; content: string }>;
  sourceIds: string[];
}

export interface MergeResult {
  listings: MergedListing[];
  /** A listing's export line. */
  text(listing: MergedListing): string;
  /** Ids of previous records no source holds any more. */
  removed: string[];
  /** How many listings carry a confirmedAt (their sources failed this time). */
  unconfirmed: number;
  /** Listings that still need a category (no source stated one). */
  uncategorised: number;
}

const day = (date: Date) => date.toISOString().slice(0, 10);
const HISTORY_WINDOW = 30;

/**
 * Union-find over group indexes: candidates sharing an identity key are one listing. A source's own records stay
 * apart unless they share their primary key (one source that lists two servers of one repository means two
 * listings), and two groups that each hold a record of the same source are never joined through a third.
 */
class Groups {
  private readonly parent: number[] = [];
  private readonly sources: Array<Set<string>> = [];
  private readonly byKey = new Map<string, number>();

  add(keys: string[], sourceId: string): number {
    let root = -1;
    keys.forEach((key, position) => {
      const found = this.byKey.get(key);
      if (found === undefined) return;
      const other = this.find(found);
      if (other === root) return;
      if (position > 0 && this.sources[other]!.has(sourceId)) return;
      if (root === -1) {
        root = other;
        return;
      }
      if ([...this.sources[other]!].some((id) => this.sources[root]!.has(id))) return;
      // The older group survives, so a group's index stays the order it was first seen in.
      const [keep, drop] = root < other ? [root, other] : [other, root];
      this.parent[drop] = keep;
      for (const id of this.sources[drop]!) this.sources[keep]!.add(id);
      root = keep;
    });
    if (root === -1) {
      root = this.parent.length;
      this.parent.push(root);
      this.sources.push(new Set());
    }
    this.sources[root]!.add(sourceId);
    for (const key of keys) if (!this.byKey.has(key)) this.byKey.set(key, root);
    return root;
  }

  find(index: number): number {
    let root = index;
    while (this.parent[root] !== root) root = this.parent[root]!;
    while (this.parent[index] !== root) {
      const next = this.parent[index]!;
      this.parent[index] = root;
      index = next;
    }
    return root;
  }

  lookup(keys: string[]): number | undefined {
    for (const key of keys) {
      const found = this.byKey.get(key);
      if (found !== undefined) return this.find(found);
    }
    return undefined;
  }
}

interface Member {
  candidate: Candidate;
  source: SourceCandidates;
  rank: number;
}

const rankOf = (kind: ListingSourceKind) => SOURCE_PRECEDENCE.indexOf(kind);
const first = <T>(members: Member[], pick: (candidate: Candidate) => T | undefined): T | undefined => {
  for (const member of members) {
    const value = pick(member.candidate);
    if (value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0)) return value;
  }
  return undefined;
};

/** The record field an export candidate carries, when it carries one. */
const fromRecord = <T>(candidate: Candidate, field: string): T | undefined => (candidate.record ? (candidate.record[field] as T | undefined) : undefined);

/** Slugs in order of preference for a new listing (the snapshot's slug rule: docs/collecting.md, "Merge"). */
export function slugChoices(type: string, name: string, repo: string): string[] {
  const base = slugify(name) || slugify(repo.split('/')[1] ?? '') || type;
  const [owner = '', repoName = ''] = repo.split('/');
  const choices = [base];
  if (type !== 'skill') choices.push(`${base}-${type}`);
  choices.push(slugify(`${owner}-${base}`), slugify(`${owner}-${repoName}-${base}`));
  return choices.map((slug) => slug.slice(0, 120).replace(/-+$/, ''));
}

function freeSlug(choices: string[], taken: Set<string>): string {
  for (const slug of choices) if (!taken.has(slug)) return slug;
  const base = choices.at(-1)!;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A history window ending at `value` on `asOf`, continuing the previous window (linear between measured points). */
export function continueHistory(
  previous: number[] | undefined,
  previousAsOf: string | undefined,
  value: number,
  asOf: string,
): { history: number[]; interpolated: boolean } {
  if (!previous?.length || !previousAsOf || previousAsOf >= asOf) return { history: [value, value], interpolated: false };
  const last = previous[previous.length - 1]!;
  if (value < last) return { history: [value, value], interpolated: false };
  const gap = Math.round((Date.parse(asOf) - Date.parse(previousAsOf)) / 86_400_000);
  const filled = [...previous];
  for (let i = 1; i <= gap; i++) filled.push(Math.round(last + ((value - last) * i) / gap));
  return { history: filled.slice(-HISTORY_WINDOW), interpolated: gap > 1 };
}

/** The type's ranking figure (the snapshot's rule: installs for skills, plugins, workflows; stars else). */
const rankedByStars = (type: string) => type === 'mcp' || type === 'marketplace';

export function mergeCandidates(input: MergeInput): MergeResult {
  const groups = new Groups();
  const members = new Map<number, Member[]>();
  const ordered = [...input.sources].sort((a, b) => rankOf(a.kind) - rankOf(b.kind));
  const pending: Array<{ index: number; member: Member }> = [];
  for (const source of ordered) {
    for (const candidate of source.candidates) {
      const index = groups.add(candidateKeys(candidate), source.sourceId);
      pending.push({ index, member: { candidate, source, rank: rankOf(source.kind) } });
    }
  }
  const firstSeen = new Map<number, number>();
  for (const [sequence, { index, member }] of pending.entries()) {
    const root = groups.find(index);
    if (!firstSeen.has(root)) firstSeen.set(root, sequence);
    const list = members.get(root) ?? [];
    list.push(member);
    members.set(root, list);
  }

  // Previous records claim their group: the group keeps the record's id and slug. (Each is read once here and again
  // while its listing is built; none is held.)
  const { previous } = input;
  const previousByGroup = new Map<number, number>();
  const previousIds: string[] = [];
  const takenSlugs = new Set<string>();
  for (let index = 0; index < previous.count; index++) {
    const record = JSON.parse(previous.read(index)) as Record<string, unknown>;
    const id = detach(String(record.id));
    previousIds.push(id);
    const root = groups.lookup([...(previous.storedKeys?.(index, id) ?? []), ...recordKeys(record)]);
    if (root === undefined || !members.has(root) || previousByGroup.has(root)) continue;
    previousByGroup.set(root, index);
    takenSlugs.add(detach(String(record.slug)));
  }

  const settle = settler(input.spool);
  const built: Array<MergedListing & { order: number; popularity: number; newKey: string; ownId?: { id: string; slug: string } }> = [];
  const takenIds = new Set(previousIds);
  for (const [root, list] of members) {
    list.sort((a, b) => a.rank - b.rank);
    const order = previousByGroup.get(root);
    const previousText = order === undefined ? undefined : previous.read(order);
    // Previous listings keep their place; new ones follow in the order the sources named them.
    const listing = buildListing(
      list,
      previousText === undefined ? undefined : (JSON.parse(previousText) as Record<string, unknown>),
      order ?? previous.count + firstSeen.get(root)!,
      input,
    );
    // An export record that no earlier collection knew keeps the id and slug the export gave it.
    const own = listing.ownId;
    if (listing.record.id === undefined && own && !takenSlugs.has(own.slug) && !takenIds.has(own.id)) {
      takenSlugs.add(own.slug);
      takenIds.add(own.id);
      listing.record = { id: own.id, slug: own.slug, ...listing.record };
    }
    delete listing.ownId;
    built.push(settle(listing, previousText));
  }

  // New listings take slugs most popular first, so the plain name goes to the best-known (the snapshot's rule).
  const fresh = built
    .filter((listing) => listing.record.id === undefined)
    .sort((a, b) => b.popularity - a.popularity || (a.newKey < b.newKey ? -1 : a.newKey > b.newKey ? 1 : 0));
  for (const listing of fresh) {
    const record = listing.record;
    const slug = freeSlug(slugChoices(String(record.type), String(record.name), String(record.repo)), takenSlugs);
    takenSlugs.add(slug);
    const id = `${record.type}:${record.repo}#${slug}`;
    takenIds.add(id);
    listing.record = { id, slug, ...record };
    Object.assign(listing, settle(listing, undefined));
  }

  built.sort((a, b) => a.order - b.order);
  const kept = new Set(built.map((listing) => String(listing.record.id)));
  return {
    listings: built.map(({ record, json, at, change, files, sourceIds, keys }) => ({
      record: json || at ? record : orderFields(record),
      ...(json ? { json } : {}),
      ...(at ? { at } : {}),
      change,
      files,
      sourceIds,
      keys,
    })),
    text: (listing) => listing.json ?? (listing.at && input.spool ? input.spool.read(listing.at) : JSON.stringify(listing.record)),
    removed: previousIds.filter((id) => !kept.has(id)),
    unconfirmed: built.filter((listing) => listing.record.confirmedAt !== undefined).length,
    uncategorised: built.filter((listing) => listing.record.category === undefined).length,
  };
}

/** The whole record of a merged listing. */
export function recordOf(result: Pick<MergeResult, 'text'>, listing: MergedListing): Record<string, unknown> {
  return listing.json || listing.at ? (JSON.parse(result.text(listing)) as Record<string, unknown>) : listing.record;
}

/** The record fields a settled listing keeps as an object. */
export function thinRecord(record: Record<string, unknown>): Record<string, unknown> {
  const thin: Record<string, unknown> = { id: record.id, slug: record.slug, type: record.type, category: record.category };
  if (record.confirmedAt !== undefined) thin.confirmedAt = record.confirmedAt;
  return thin;
}

/** A listing whose id and category are known is held as its export line (see MergedListing), compared with the previous one. */
function settler(spool: SpoolLike | undefined) {
  return <T extends MergedListing>(listing: T, previousText: string | undefined): T => {
    const { record } = listing;
    if (listing.json || listing.at || record.id === undefined || record.category === undefined) return listing;
    const json = JSON.stringify(orderFields(record));
    const change = previousText === undefined ? 'added' : previousText === json ? 'kept' : 'changed';
    return { ...listing, record: thinRecord(record), change, ...(spool ? { at: spool.append(json) } : { json }) };
  };
}

/** The export's field order (the snapshot's), so records diff and compare byte for byte. */
const FIELD_ORDER = [
  'id',
  'slug',
  'type',
  'name',
  'description',
  'repo',
  'author',
  'category',
  'categories',
  'tags',
  'installs',
  'stars',
  'metricsSource',
  'metrics',
  'installsHistory',
  'updatedAt',
  'firstCommitAt',
  'source',
  'installCommand',
  'homepage',
  'alsoListedIn',
  'marketplace',
  'version',
  'pluginCount',
  'files',
  'registryName',
  'packages',
  'remotes',
  'status',
  'pluginSource',
  'archived',
  'movedTo',
  'confirmedAt',
];

function orderFields(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELD_ORDER) if (record[field] !== undefined) out[field] = record[field];
  for (const field of Object.keys(record).sort()) if (!(field in out) && record[field] !== undefined) out[field] = record[field];
  return out;
}

function buildListing(
  list: Member[],
  previous: Record<string, unknown> | undefined,
  order: number,
  input: MergeInput,
): MergedListing & { order: number; popularity: number; newKey: string; ownId?: { id: string; slug: string } } {
  // An export record travels as text; it is read here, for this listing only.
  list = list.map((m) => {
    const text = m.candidate.record ? undefined : (m.candidate.recordJson ?? m.candidate.recordAt?.());
    return text === undefined ? m : { ...m, candidate: { ...m.candidate, record: JSON.parse(text) as Record<string, unknown> } };
  });
  const lead = list[0]!.candidate;
  const prev = previous ?? {};
  const type = lead.type;
  const repo = previous ? String(previous.repo) : lead.repo;
  const owner = repo.split('/')[0]!;
  const today = day(input.now);

  // An export's record is already plain text: it passes as it is, so an export collects to itself.
  const name = first(list, (c) => (c.record ? String(c.record.name) : cleanText(c.name, NAME_MAX))) || String(prev.name ?? '') || repo.split('/')[1]!;
  const description = first(list, (c) => (c.record ? String(c.record.description ?? '') : cleanText(c.description))) ?? '';
  const author = first(list, (c) => c.author?.trim() || fromRecord<string>(c, 'author')) ?? owner;
  const tags = first(list, (c) => c.tags ?? fromRecord<string[]>(c, 'tags')) ?? [];

  const stated: string[] = [];
  for (const member of list) {
    // A source's own words (a marketplace's "development") count only once they map onto the catalog's vocabulary.
    for (const label of member.candidate.categories ?? fromRecord<string[]>(member.candidate, 'categories') ?? []) {
      const slug = CATEGORY_LABELS[label] ? label : categoryOfHeading(label);
      if (slug && !stated.includes(slug)) stated.push(slug);
    }
    const recordCategory = fromRecord<string>(member.candidate, 'category');
    if (recordCategory && !stated.includes(recordCategory)) stated.splice(0, 0, recordCategory);
  }
  const prevCategory = typeof prev.category === 'string' ? prev.category : undefined;
  // Undefined: no source categorised it; the collector's classifier decides (classify.ts).
  const category = stated[0] ?? prevCategory;
  const categories = stated.length > 1 ? stated : undefined;

  // Figures: a measured value from this collection, else the one carried, else none (labelled, never invented).
  const carried = list.find((m) => m.candidate.record)?.candidate.record ?? prev;
  const carriedMetrics = (carried.metrics ?? {}) as Record<string, string | undefined>;
  const meta = input.repoMeta.get(repo.toLowerCase());
  const skillName = String(lead.record?.name ?? lead.name);
  const counted = type === 'skill' ? input.installs.get(`${repo.toLowerCase()}|${skillName.toLowerCase()}`) : undefined;
  const candidateInstalls = first(list, (c) => c.installs);
  const candidateStars = first(list, (c) => c.stars);

  let installs = typeof carried.installs === 'number' ? carried.installs : 0;
  let installsReal = carriedMetrics.installs === 'real';
  let history = Array.isArray(carried.installsHistory) ? (carried.installsHistory as number[]) : [installs, installs];
  let historyKind = carriedMetrics.history ?? 'synthetic';
  let installsAsOf = carriedMetrics.installsAsOf;
  const measuredInstalls = counted ? { value: counted.installs, asOf: counted.asOf } : candidateInstalls;
  if (measuredInstalls) {
    const continued = continueHistory(installsReal ? history : undefined, installsAsOf, measuredInstalls.value, measuredInstalls.asOf);
    installs = measuredInstalls.value;
    history = continued.history;
    historyKind = continued.interpolated ? 'interpolated' : installsReal && history.length > 2 ? historyKind : 'real';
    installsReal = true;
    installsAsOf = measuredInstalls.asOf;
  }
  if (!installsReal && carried.installs === undefined) {
    installs = 0;
    history = [0, 0];
    historyKind = 'synthetic';
  }

  let stars = typeof carried.stars === 'number' ? carried.stars : 0;
  let starsReal = carriedMetrics.stars === 'real';
  let starsSource = carriedMetrics.starsSource;
  let starsAsOf = carriedMetrics.starsAsOf;
  if (meta && !meta.missing) {
    stars = meta.stars;
    starsReal = true;
    starsSource = 'github';
    starsAsOf = meta.asOf;
  } else if (candidateStars) {
    stars = candidateStars.value;
    starsReal = true;
    starsSource = candidateStars.source;
    starsAsOf = candidateStars.asOf;
  }
  const metrics: Record<string, string> = { installs: installsReal ? 'real' : 'synthetic', stars: starsReal ? 'real' : 'synthetic', history: historyKind };
  if (installsReal && installsAsOf) metrics.installsAsOf = installsAsOf;
  if (starsReal && starsSource) metrics.starsSource = starsSource;
  if (starsReal && starsAsOf) metrics.starsAsOf = starsAsOf;
  const metricsSource = (rankedByStars(type) ? starsReal : installsReal) ? 'real' : 'synthetic';

  // The file each member was read from; the strongest is the listing's source, the other lists are "also listed in".
  const origins = list
    .filter((m) => m.source.kind !== 'export')
    .map(
      (m) =>
        m.candidate.origin ??
        (m.candidate.path && m.candidate.commit
          ? { repo: m.candidate.repo, path: m.candidate.path.replace(/#.*$/, ''), commit: m.candidate.commit }
          : undefined),
    )
    .filter((origin) => origin !== undefined);
  const withPath = list.find((m) => m.candidate.path && m.candidate.commit && m.source.kind === 'git');
  const viaSource = list.find((m) => m.source.kind === 'mcp-registry');
  const source =
    origins[0] ??
    (viaSource && !lead.record ? { repo, via: viaSource.source.sourceId } : ((lead.record?.source ?? prev.source ?? { repo }) as Record<string, unknown>));
  const sourceLabel = (origin: { repo?: unknown; path?: unknown }) => `${String(origin.repo)} ${String(origin.path)}`;

  const updatedAt =
    first(list, (c) => c.updatedAt ?? fromRecord<string>(c, 'updatedAt')) ?? (typeof prev.updatedAt === 'string' ? prev.updatedAt : `${today}T00:00:00Z`);
  const files = first(list, (c) => c.files) ?? [];
  const confirmedDays = list.map((m) => m.source.confirmedAt);
  const confirmedAt = confirmedDays.every((d) => d !== undefined) ? confirmedDays.sort().at(-1) : undefined;

  const alsoListedIn = [
    ...new Set([
      ...origins.filter((origin) => origin.repo !== repo || list.some((m) => m.candidate.origin === origin)).map(sourceLabel),
      ...list.flatMap((m) => m.candidate.alsoListedIn ?? fromRecord<string[]>(m.candidate, 'alsoListedIn') ?? []),
    ]),
  ].filter((label) => label !== sourceLabel(source));
  const packages = first(list, (c) => c.packages ?? fromRecord<McpPackage[]>(c, 'packages'));
  const installCommand =
    first(list, (c) => c.installCommand ?? fromRecord<string>(c, 'installCommand')) ??
    (type === 'mcp'
      ? packageInstallLine(packages)
      : defaultInstallCommand(
          type,
          repo,
          name,
          first(list, (c) => c.marketplace),
          withPath?.candidate.path,
        ));

  const record: Record<string, unknown> = {
    ...(previous ? { id: previous.id, slug: previous.slug } : {}),
    type,
    name,
    description,
    repo,
    author,
    category,
    categories,
    tags,
    installs,
    stars,
    metricsSource,
    metrics,
    installsHistory: history,
    updatedAt,
    firstCommitAt: first(list, (c) => c.firstCommitAt ?? fromRecord<string>(c, 'firstCommitAt')),
    source,
    installCommand,
    homepage: first(list, (c) => c.homepage ?? fromRecord<string>(c, 'homepage')),
    alsoListedIn: alsoListedIn.length ? alsoListedIn : undefined,
    marketplace: first(list, (c) => c.marketplace ?? fromRecord<string>(c, 'marketplace')),
    version: first(list, (c) => c.version ?? fromRecord<string>(c, 'version')),
    pluginCount: first(list, (c) => c.pluginCount ?? fromRecord<number>(c, 'pluginCount')),
    files: files.length ? files.map((f) => f.path) : undefined,
    registryName: first(list, (c) => c.registryName ?? fromRecord<string>(c, 'registryName')),
    packages,
    remotes: first(list, (c) => c.remotes ?? fromRecord(c, 'remotes')),
    status: first(list, (c) => c.status ?? fromRecord(c, 'status')),
    pluginSource: first(list, (c) => c.pluginSource ?? fromRecord(c, 'pluginSource')),
    archived: meta && !meta.missing ? (meta.archived ? true : undefined) : fromRecord<boolean>(lead, 'archived'),
    movedTo: meta && !meta.missing && meta.fullName.toLowerCase() !== repo.toLowerCase() ? meta.fullName : undefined,
    confirmedAt,
  };
  // Stored files travel with the export source's record too (read from its files/ folder).
  const popularity = rankedByStars(type) ? stars : installs;
  return {
    record,
    change: 'added',
    files,
    keys: [...new Set(list.flatMap((m) => candidateKeys(m.candidate)))],
    sourceIds: [...new Set(list.map((m) => m.source.sourceId))],
    order,
    popularity,
    newKey: candidateKeys(lead)[0]!,
    ...ownIdOf(list, repo),
  };
}

/** The id and slug an export record of the group gave the listing (it keeps them when no collection knew it). */
function ownIdOf(list: Member[], repo: string): { ownId?: { id: string; slug: string } } {
  const record = list.find((m) => typeof m.candidate.record?.id === 'string')?.candidate.record;
  if (!record || typeof record.slug !== 'string' || String(record.repo) !== repo) return {};
  return { ownId: { id: String(record.id), slug: record.slug } };
}

/** The line that runs an MCP server's first package the registry names (npm, PyPI, OCI), as the lists write it. */
export function packageInstallLine(packages: McpPackage[] | undefined): string | undefined {
  for (const pkg of packages ?? []) {
    const id = pkg.identifier;
    if (pkg.registryType === 'npm') return `npx -y ${id}`;
    if (pkg.registryType === 'pypi') return `uvx ${id}`;
    if (pkg.registryType === 'oci') return `docker run -i --rm ${id}`;
  }
  return undefined;
}

/** The install line of a new listing when no source states one (the snapshot's conventions). */
function defaultInstallCommand(type: string, repo: string, name: string, marketplace: string | undefined, path: string | undefined): string | undefined {
  if (type === 'skill') return `npx skills add ${repo} --skill ${name}`;
  if (type === 'workflow' && path) return `gh aw add ${repo}/${path.replace(/\.md$/, '')}`;
  if (type === 'marketplace') return `/plugin marketplace add ${repo}`;
  if (type === 'plugin' && marketplace) return `/plugin install ${name}@${marketplace}`;
  return undefined;
}
