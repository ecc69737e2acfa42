// The "index" stage: listing records → the artifacts the shim loads at start without re-indexing anything:
// listing JSON lines with byte offsets, numeric columns and sort orders, filter postings, the keyword
// index (src/search/index-file.ts), stored files, and a manifest with stats and categories. The records come from
// the SQLite store (an offline mirror ingests the origin's published export into its own, so it goes through this
// same code path and serves the same answers), read in passes through a RuntimeSource. The keyword index is built
// on a worker thread meanwhile (build/keyword-index-thread.ts). Every file goes through the RuntimeWriter, which records
// the manifest last.
import { once } from 'node:events';
import { LISTING_TYPES, typeCode, type ListingType } from '../../src/domain/listing/listing-types.ts';
import { categoryLabel } from '../../src/domain/listing/categories.ts';
import {
  compareIds,
  comparePlaces,
  placeBelow,
  placeOf,
  popularityPrior,
  trendingScore,
  type FigureProvenance,
  type SortKey,
} from '../../src/domain/listing/ranking.ts';
import { KeywordIndexThread } from '../keyword-index-thread.ts';
import { toStoredListing, type StoredListing } from '../../src/domain/listing/listing-view.ts';
import { archivedReason, archiveIndex, liveSuccessors } from '../../src/domain/listing/archived.ts';
import { slugOfId, type ListingRecord, type Category, type ListingFile } from '../../src/domain/schemas.ts';
import { addDays, readMeta, type CatalogDb } from '../sqlite-store.ts';
import {
  KEYWORD_INDEX_DIR,
  REAL_FIGURE,
  RUNTIME_FILES_DIR,
  RUNTIME_FORMAT,
  RUNTIME_GONE_FILE,
  RUNTIME_IDS_FILE,
  RUNTIME_LISTINGS_FILE,
  RUNTIME_POSTING_KEYS_FILE,
  runtimeFilesPath,
  type RuntimeManifest,
} from '../../src/artifacts/runtime-manifest.ts';
import { pageRowLine, RUNTIME_PAGE_ROWS_FILE } from '../../src/artifacts/page-rows.ts';
import { buildSlugTable } from '../../src/artifacts/slug-table.ts';
import type { RuntimeWriter } from '../runtime-writer.ts';
import { computeCopyGroups, type CopyCandidate } from '../copy-groups.ts';
import { auditFiles, AUDIT_RULES } from '../skill-audit.ts';
import { AUDIT_LEVELS, type AuditLevel, type SkillAudit } from '../../src/domain/schemas.ts';

/** The numbers of one listing that decide its place in every order. */
export interface SourceRow {
  id: string;
  type: ListingType;
  installs: number;
  stars: number;
  trending: number;
  name: string;
  metrics: FigureProvenance;
  /** The record's `archived` and `movedTo` (src/domain/listing/archived.ts). */
  archived?: boolean | undefined;
  movedTo?: string | undefined;
}

/**
 * How the index stage reads the store: pass 1 in any order, pass 2 in the document order pass 1 decided (the
 * default order of ranking.ts: real installs, then real stars, then the rest by id).
 */
interface RuntimeSource {
  meta(): { snapshotHash: string; lastUpdated: string };
  /** Pass 1: every listing's numbers, and its name, in any order. */
  rows(): Iterable<SourceRow>;
  /** Pass 2: the listings of `ids` as stored, in that order (trending and searchTrend are set from pass 1 before writing). */
  listings(ids: readonly string[]): Iterable<StoredListing>;
  /** Listings no longer listed whose history the store keeps: id and the last day they were listed. */
  gone(): Iterable<{ id: string; lastListed: string }>;
  /** Stored files per listing id that has any (SKILL.md first, then path order), in any order. */
  files(): Iterable<{ id: string; files: ListingFile[] }>;
  /** What copy groups compare, per listing in the default order (SKILL.md where stored). */
  copyCandidates(): Iterable<CopyCandidate>;
}

export interface RuntimeBuildOptions {
  /** The SQLite store to read. */
  db: CatalogDb;
  /** The build's runtime/. */
  out: RuntimeWriter;
  /** searchTrend per listing id, folded in by the rebuild from the shim's counters. */
  searchTrend?: ReadonlyMap<string, number>;
  /** Removed listings as given (a mirror's: the origin's), id → last day listed, beside the source's own. */
  gone?: ReadonlyMap<string, string> | undefined;
  onProgress?: (done: number, total: number) => void;
  /**
   * The keyword index's per-listing terms (build/keyword-term-cache.ts): reused from `previous` (the build being
   * served's) where a listing's texts are unchanged and `fingerprint` (the code's) is the one it was written with;
   * this build's are kept at `out` for the next.
   */
  termCache?: { previous?: string | undefined; out: string; fingerprint: string } | undefined;
  /** The operator's log: what was reused from the previous build. */
  log?: (message: string) => void;
  /** Told as each step of the stage ends, with what it cost (the operator's log, bench/keyword-build.ts). */
  onStep?: (step: IndexStep) => void;
}

/** One step of the index stage: wall and CPU milliseconds (the process's CPU, its other threads' included). */
export interface IndexStep {
  step: string;
  wallMs: number;
  cpuMs: number;
}

function stepTimer(onStep: ((step: IndexStep) => void) | undefined): { done(step: string): void } {
  let wall = performance.now();
  let cpu = process.cpuUsage();
  return {
    done(step) {
      const now = performance.now();
      const used = process.cpuUsage(cpu);
      onStep?.({ step, wallMs: Math.round(now - wall), cpuMs: Math.round((used.user + used.system) / 1000) });
      wall = now;
      cpu = process.cpuUsage();
    },
  };
}

/** The owner/repo of a path-style id ({type}:{owner}/{repo}#{slug}). */
const repoOfId = (id: string): string => id.slice(id.indexOf(':') + 1, id.lastIndexOf('#'));

/** Trending reads the newest 30 days of the stored history (7-day window against the 23 days before it). */
export const TRENDING_HISTORY_DAYS = 30;

/**
 * The last `days` values of a stored daily series (a JSON array of numbers), parsing only them: the index stage reads
 * every listing's history, a year of days, for the newest month of it.
 */
export function lastDays(daily: string, days: number): number[] {
  let start = daily.length - 1;
  for (let seen = 0; start > 0; start--) if (daily.charCodeAt(start) === 44 /* , */ && ++seen === days) break;
  return start > 0 ? (JSON.parse(`[${daily.slice(start + 1)}`) as number[]) : (JSON.parse(daily) as number[]).slice(-days);
}

/** Listings read by one statement in pass 2. */
const LISTINGS_PER_READ = 512;

/** The SQLite store as a source: trending from the newest days of each listing's install history. */
function catalogDbSource(db: CatalogDb): RuntimeSource {
  return {
    meta() {
      const meta = readMeta(db);
      return { snapshotHash: meta.snapshotHash ?? '', lastUpdated: meta.lastUpdated ?? new Date(0).toISOString() };
    },
    *rows() {
      // In key order: left to choose, SQLite walks the smaller slug index and looks every listing up by its key, a
      // random read per listing that grew faster than the store. The caller puts the rows in slug order.
      const query = db.prepare(
        "SELECT l.id, l.type, l.installs, l.stars, h.daily, json_extract(l.record, '$.name'), json_extract(l.record, '$.metrics'), json_extract(l.record, '$.archived'), json_extract(l.record, '$.movedTo') FROM listing l JOIN install_history h ON h.listing_id = l.id ORDER BY l.id",
      );
      for (const [id, type, installs, stars, daily, name, metrics, archived, movedTo] of query.raw().iterate() as Iterable<
        [string, ListingType, number, number, string, string, string, number | null, string | null]
      >) {
        const history = lastDays(daily, TRENDING_HISTORY_DAYS);
        yield {
          id,
          type,
          installs,
          stars,
          trending: trendingScore(history),
          name,
          metrics: JSON.parse(metrics) as FigureProvenance,
          archived: archived === 1,
          movedTo: movedTo ?? undefined,
        };
      }
    },
    *listings(ids) {
      // The order rests on provenance inside each record, which SQL would have to parse for every comparison: pass 1
      // sorts in JS and this pass looks the listings up by their primary key in that order, a batch of them per
      // statement (one statement per listing cost twice as much).
      const byIds = db.prepare('SELECT l.id, l.record FROM json_each(?) j JOIN listing l ON l.id = j.value').raw();
      for (let start = 0; start < ids.length; start += LISTINGS_PER_READ) {
        const wanted = ids.slice(start, start + LISTINGS_PER_READ);
        const records = new Map(byIds.all(JSON.stringify(wanted)) as [string, string][]);
        for (const id of wanted) {
          const json = records.get(id);
          if (json === undefined) throw new Error(`listing ${id} left the store while it was read`);
          yield toStoredListing(JSON.parse(json) as ListingRecord, { trending: 0, searchTrend: 0 });
        }
      }
    },
    *gone() {
      // A listing missing from the newest export keeps its history until its last day leaves the kept window
      // (ingest.ts): until then it is a listing that was removed, not one that never existed.
      const query = db.prepare(
        'SELECT h.listing_id, h.first_day, json_array_length(h.daily) FROM install_history h LEFT JOIN listing l ON l.id = h.listing_id WHERE l.id IS NULL ORDER BY h.listing_id',
      );
      for (const [id, firstDay, days] of query.raw().iterate() as Iterable<[string, string, number]>) yield { id, lastListed: addDays(firstDay, days - 1) };
    },
    *files() {
      let current: { id: string; files: ListingFile[] } | undefined;
      for (const row of db.prepare('SELECT listing_id, path, size, media_type, content FROM listing_file ORDER BY listing_id, ord').raw().iterate() as Iterable<
        [string, string, number, string, string]
      >) {
        const [id, path, size, mediaType, content] = row;
        if (current?.id !== id) {
          if (current) yield current;
          current = { id, files: [] };
        }
        current.files.push({ path, size, mediaType, content });
      }
      if (current) yield current;
    },
    *copyCandidates() {
      const skillMd = new Map<string, string>();
      for (const [id, content] of db.prepare("SELECT listing_id, content FROM listing_file WHERE path = 'SKILL.md'").raw().iterate() as Iterable<
        [string, string]
      >)
        skillMd.set(id, content);
      const query = db.prepare(
        "SELECT id, type, json_extract(record, '$.name'), json_extract(record, '$.description'), installs, stars, json_extract(record, '$.metrics.installs'), json_extract(record, '$.metrics.stars'), json_extract(record, '$.updatedAt'), json_extract(record, '$.firstCommitAt') FROM listing ORDER BY installs DESC, id ASC",
      );
      for (const row of query.raw().iterate() as Iterable<[string, string, string, string, number, number, string, string, string, string | null]>) {
        const [id, type, name, description, installs, stars, installsSource, starsSource, updatedAt, firstCommitAt] = row;
        yield {
          id,
          type,
          name,
          description,
          installs,
          installsReal: installsSource === 'real',
          stars,
          starsReal: starsSource === 'real',
          updatedAt,
          firstCommitAt: firstCommitAt ?? undefined,
          skillMd: skillMd.get(id),
        };
      }
    },
  };
}

/** Copy groups and audits of a catalog: what the index stage adds to each listing, apart for measuring (bench). */
export interface CopiesAndAudits {
  /** Per document: the document of its group's origin (itself when it is in no group). */
  copyGroup: Uint32Array;
  /** Per document: the fields it gains (copyOf, copyKind, copySimilarity, copies), when any. */
  copyFields: (Record<string, unknown> | undefined)[];
  copyStats: { groups: number; copies: number; modified: number };
  /** Audits by document. */
  audits: Map<number, SkillAudit>;
  /** Milliseconds spent reading the candidates, grouping them and auditing the files (bench/copies-audit.ts). */
  ms: { read: number; groups: number; audit: number };
}

/** Copy groups over every listing and the audit of every stored file, from the store (one pass each). */
export function copiesAndAudits(db: CatalogDb, docOf: ReadonlyMap<string, number>, count: number): CopiesAndAudits {
  return computeCopiesAndAudits(catalogDbSource(db), docOf, count);
}

function computeCopiesAndAudits(source: RuntimeSource, docOf: ReadonlyMap<string, number>, count: number): CopiesAndAudits {
  const started = performance.now();
  const candidates = [...source.copyCandidates()];
  const read = performance.now();
  const groups = computeCopyGroups(candidates);
  const grouped = performance.now();
  const copyGroup = new Uint32Array(count);
  const copyFields: (Record<string, unknown> | undefined)[] = new Array(count).fill(undefined);
  const copiesOf = new Uint32Array(count);
  let modified = 0;
  candidates.forEach((candidate, i) => {
    const doc = docOf.get(candidate.id)!;
    const member = groups.members[i];
    const originDoc = member ? docOf.get(candidates[member.origin]!.id)! : doc;
    copyGroup[doc] = originDoc;
    if (member?.kind) {
      copyFields[doc] = { copyOf: candidates[member.origin]!.id, copyKind: member.kind, copySimilarity: member.similarity };
      copiesOf[originDoc]!++;
      if (member.kind === 'modified') modified++;
    }
  });
  copiesOf.forEach((n, doc) => {
    if (n > 0) copyFields[doc] = { copies: n };
  });
  const audits = new Map<number, SkillAudit>();
  for (const { id, files } of source.files()) {
    const doc = docOf.get(id);
    if (doc !== undefined) audits.set(doc, auditFiles(files));
  }
  const audited = performance.now();
  const ms = { read: Math.round(read - started), groups: Math.round(grouped - read), audit: Math.round(audited - grouped) };
  return { copyGroup, copyFields, copyStats: { groups: groups.groups, copies: groups.copies, modified }, audits, ms };
}

export async function buildRuntimeArtifacts(options: RuntimeBuildOptions): Promise<RuntimeManifest> {
  const keywords = new KeywordIndexThread({ termCache: options.termCache });
  try {
    const manifest = await writeRuntimeArtifacts(options, keywords);
    const terms = keywords.termReuse;
    if (terms) {
      const unused = terms.unused ? ` (nothing reused from the previous build: ${terms.unused})` : '';
      options.log?.(`index: keyword terms reused for ${terms.reused} listings, ${terms.tokenized} tokenized${unused}`);
    }
    return manifest;
  } finally {
    await keywords.close();
  }
}

async function writeRuntimeArtifacts(options: RuntimeBuildOptions, keywords: KeywordIndexThread): Promise<RuntimeManifest> {
  const { out } = options;
  const steps = stepTimer(options.onStep);
  const source = catalogDbSource(options.db);
  // files/<doc>.json: the folder is there even when no listing has stored files.
  out.folder(RUNTIME_FILES_DIR);
  const meta = source.meta();

  // Pass 1: the numbers that decide the document order (the default sort) and the other sorts, and the names.
  const rows: SourceRow[] = [];
  for (const row of source.rows()) rows.push(row);
  // Slug order, as the rows came before they were read in key order: liveSuccessors keeps the last of two live
  // listings with one type, repository and name, so the order decides which one a moved listing follows.
  rows.sort((a, b) => compareIds(slugOfId(a.id), slugOfId(b.id)));
  const count = rows.length;
  steps.done('rows read');
  // Archived and moved listings, from every listing's repository, name and record (src/domain/listing/archived.ts).
  const archivable = (row: SourceRow) => ({ type: row.type, repo: repoOfId(row.id), name: row.name, archived: row.archived, movedTo: row.movedTo });
  const archiveKeys = archiveIndex(rows.map(archivable));
  const archived = new Map<string, string>();
  for (const row of rows) {
    const reason = archivedReason(archivable(row), archiveKeys);
    if (reason) archived.set(row.id, reason);
  }
  // A listing that moved ranks right below its live successor wherever its own figures would put it above.
  const successorOf = new Map([...liveSuccessors(rows.map(archivable))].map(([moved, successor]) => [rows[moved]!.id, rows[successor]!.id]));
  const places = (sort: SortKey) => {
    const placed = rows.map((row) => placeOf(sort, { ...row, searchTrend: options.searchTrend?.get(row.id) ?? 0 }));
    if (successorOf.size === 0) return placed;
    const at = new Map(rows.map((row, i) => [row.id, i]));
    for (const [moved, successor] of successorOf) {
      const [m, s] = [at.get(moved)!, at.get(successor)!];
      if (comparePlaces(placed[m]!, moved, placed[s]!, successor) < 0) placed[m] = placeBelow(placed[s]!);
    }
    return placed;
  };
  {
    const defaultPlaces = places('installs');
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => comparePlaces(defaultPlaces[a]!, rows[a]!.id, defaultPlaces[b]!, rows[b]!.id));
    const sorted = order.map((i) => rows[i]!);
    for (let i = 0; i < count; i++) rows[i] = sorted[i]!;
  }
  const ids: string[] = new Array(count);
  const type = new Uint8Array(count);
  const installs = new Uint32Array(count);
  const stars = new Uint32Array(count);
  const trending = new Float32Array(count);
  const searchTrend = new Float32Array(count);
  const popularity = new Float32Array(count);
  const realFigures = new Uint8Array(count);
  const updated = new Uint32Array(count);
  // The names first: which word pairs of descriptions the keyword index holds joined (KeywordIndexBuilder.addName).
  rows.forEach((row, doc) => {
    keywords.addName(row.name);
    ids[doc] = row.id;
    type[doc] = typeCode(row.type);
    installs[doc] = Math.min(row.installs, 0xffffffff);
    stars[doc] = Math.min(row.stars, 0xffffffff);
    trending[doc] = row.trending;
    searchTrend[doc] = options.searchTrend?.get(row.id) ?? 0;
    popularity[doc] = popularityPrior(row.type, row.installs, row.stars, row.metrics, archived.has(row.id));
    realFigures[doc] = (row.metrics.installs === 'real' ? REAL_FIGURE.installs : 0) | (row.metrics.stars === 'real' ? REAL_FIGURE.stars : 0);
  });
  if (successorOf.size > 0) {
    // Search weighs popularity too: a moved listing's never exceeds its successor's.
    const docOf = new Map(ids.map((id, doc) => [id, doc]));
    for (const [moved, successor] of successorOf) {
      const [m, s] = [docOf.get(moved)!, docOf.get(successor)!];
      popularity[m] = Math.min(popularity[m]!, popularity[s]! * 0.99);
    }
  }
  const placesBy = { stars: places('stars'), trending: places('trending'), searchTrend: places('searchTrend') };
  rows.length = 0;

  // idRank: position of each id in ascending id order, the tie-break of every sort.
  const byId = Array.from({ length: count }, (_, i) => i).sort((a, b) => compareIds(ids[a]!, ids[b]!));
  const idRank = new Uint32Array(count);
  byId.forEach((doc, rank) => (idRank[doc] = rank));
  const order = (sort: keyof typeof placesBy): Uint32Array => {
    const place = placesBy[sort];
    const perm = Uint32Array.from({ length: count }, (_, i) => i);
    perm.sort((a, b) => comparePlaces(place[a]!, idRank[a]!, place[b]!, idRank[b]!));
    return perm;
  };
  const permStars = order('stars');
  const permTrending = order('trending');
  const permSearchTrend = order('searchTrend');
  const inverse = (perm: Uint32Array): Uint32Array => {
    const rank = new Uint32Array(count);
    perm.forEach((doc, pos) => (rank[doc] = pos));
    return rank;
  };
  steps.done('orders');

  // Pass 2: listing JSON lines in document order, the search indexes and the filter postings.
  const postings = new Map<string, number[]>();
  const post = (key: string, doc: number) => {
    const list = postings.get(key);
    if (!list) postings.set(key, [doc]);
    else if (list[list.length - 1] !== doc) list.push(doc);
  };
  const offsets = new Float64Array(count + 1);
  const listingsOut = out.stream(RUNTIME_LISTINGS_FILE);
  const pageRowsOut = out.stream(RUNTIME_PAGE_ROWS_FILE);
  let bytes = 0;
  let doc = 0;
  const byType = Object.fromEntries(LISTING_TYPES.map((t) => [t, 0])) as Record<ListingType, number>;
  const installsByType = { ...byType };
  const realMetrics = { ...byType };
  const realInstalls = { ...byType };
  const realStars = { ...byType };
  const estimated = { installs: 0, listings: 0 };
  const categoryCounts = new Map<string, number>();
  let totalInstalls = 0;
  const docOf = new Map<string, number>();
  ids.forEach((id, i) => docOf.set(id, i));
  const { copyGroup, copyFields, copyStats, audits } = computeCopiesAndAudits(source, docOf, count);
  steps.done('copies and audits');
  const byLevel = Object.fromEntries(AUDIT_LEVELS.map((level) => [level, 0])) as Record<AuditLevel, number>;
  const findingsByRule = Object.fromEntries(AUDIT_RULES.map((rule) => [rule.id, 0])) as Record<string, number>;
  for (const view of source.listings(ids)) {
    if (ids[doc] !== view.id) throw new Error(`document order changed while reading ${view.id}`);
    // Assigning existing keys keeps their place, so the stored JSON has the field order of toStoredListing.
    view.trending = trending[doc]!;
    view.searchTrend = searchTrend[doc]!;
    if (copyFields[doc]) Object.assign(view, copyFields[doc]);
    const audit = audits.get(doc);
    if (audit) {
      view.audit = audit;
      byLevel[audit.level]++;
      for (const finding of audit.findings) findingsByRule[finding.rule] = (findingsByRule[finding.rule] ?? 0) + 1;
      // The risk filter: r:<level> holds the audited listings of that level.
      post(`r:${audit.level}`, doc);
    }
    const archivedBecause = archived.get(view.id);
    if (archivedBecause) view.archived = archivedBecause;
    updated[doc] = Math.max(0, Math.floor(Date.parse(view.updatedAt) / 1000)) || 0;
    const json = JSON.stringify(view);
    const line = json + '\n';
    offsets[doc] = bytes;
    bytes += Buffer.byteLength(line);
    if (!listingsOut.write(line)) await once(listingsOut, 'drain');
    if (!pageRowsOut.write(pageRowLine(view, json))) await once(pageRowsOut, 'drain');

    const behind = keywords.add(view);
    if (behind) await behind;

    for (const category of view.categories) {
      post(`c:${category}`, doc);
      categoryCounts.set(`${view.type}\u0000${category}`, (categoryCounts.get(`${view.type}\u0000${category}`) ?? 0) + 1);
    }
    post(`o:${view.repo.split('/')[0]!.toLowerCase()}`, doc);
    post(`o:${view.author.toLowerCase()}`, doc);

    byType[view.type]++;
    // Totals count real figures only; a synthetic one is reported apart (CatalogStatsSchema.estimated).
    if (view.metrics.installs === 'real') {
      installsByType[view.type] += view.installs;
      totalInstalls += view.installs;
      realInstalls[view.type]++;
    } else {
      estimated.installs += view.installs;
      estimated.listings++;
    }
    if (view.metrics.stars === 'real') realStars[view.type]++;
    if (view.metricsSource === 'real') realMetrics[view.type]++;
    doc++;
    if (doc % 5000 === 0) options.onProgress?.(doc, count);
  }
  offsets[count] = bytes;
  listingsOut.end();
  pageRowsOut.end();
  await Promise.all([once(listingsOut, 'close'), once(pageRowsOut, 'close')]);
  if (doc !== count) throw new Error(`expected ${count} listings, read ${doc}`);
  options.onProgress?.(count, count);
  // The worker finishes the keyword index while this thread writes the columns, postings and stored files.
  await keywords.finish(popularity, out.folder(KEYWORD_INDEX_DIR));
  steps.done('listings written');

  // Postings as one Uint32Array; keys sorted (code-unit order): the file is deterministic and the shim finds a key by
  // binary search (TermTable).
  const keys = [...postings.keys()].sort();
  const postingStarts = new Uint32Array(keys.length + 1);
  keys.forEach((key, k) => (postingStarts[k + 1] = postingStarts[k]! + postings.get(key)!.length));
  const postingData = new Uint32Array(postingStarts[keys.length]!);
  keys.forEach((key, k) => postingData.set(postings.get(key)!, postingStarts[k]!));
  const slugs = ids.map(slugOfId);
  const idOffsets = new Uint32Array(count + 1);
  ids.forEach((id, i) => (idOffsets[i + 1] = idOffsets[i]! + Buffer.byteLength(id) + 1));

  const columns = out.columns({
    offsets,
    type,
    installs,
    stars,
    trending,
    searchTrend,
    popularity,
    realFigures,
    updated,
    idRank,
    permStars,
    permTrending,
    permSearchTrend,
    rankStars: inverse(permStars),
    rankTrending: inverse(permTrending),
    rankSearchTrend: inverse(permSearchTrend),
    postings: postingData,
    postingStarts,
    idOffsets,
    slugTable: buildSlugTable(slugs),
    copyGroup,
  });
  out.write(RUNTIME_IDS_FILE, ids.join('\n'));
  out.write(RUNTIME_POSTING_KEYS_FILE, keys.join('\n'));
  const current = new Set(slugs);
  const gone: Record<string, string> = {};
  // A slug taken again by a listed listing answers as that listing, not as the removed one.
  for (const { id, lastListed } of source.gone()) if (!current.has(slugOfId(id))) gone[id] = lastListed;
  for (const [id, lastListed] of options.gone ?? []) if (!current.has(slugOfId(id)) && !(id in gone)) gone[id] = lastListed;
  out.write(RUNTIME_GONE_FILE, JSON.stringify(gone));
  steps.done('columns and postings');

  let filesStored = 0;
  for (const { id, files } of source.files()) {
    const fileDoc = docOf.get(id);
    if (fileDoc === undefined) continue;
    out.write(runtimeFilesPath(fileDoc), JSON.stringify(files));
    filesStored++;
  }
  steps.done('stored files');
  await keywords.whenWritten();
  steps.done('keyword index (what was left)');

  const lastUpdated = meta.lastUpdated;
  const categories: Category[] = [...categoryCounts.entries()]
    .map(([key, n]) => {
      const [t, name] = key.split('\u0000') as [ListingType, string];
      return { type: t, name, label: categoryLabel(name), count: n };
    })
    .sort((a, b) => LISTING_TYPES.indexOf(a.type) - LISTING_TYPES.indexOf(b.type) || compareIds(a.name, b.name));
  const manifest: RuntimeManifest = {
    format: RUNTIME_FORMAT,
    snapshotHash: meta.snapshotHash,
    lastUpdated,
    count,
    columns,
    filesStored,
    stats: {
      total: count,
      byType,
      installs: totalInstalls,
      installsByType,
      realInstalls,
      realStars,
      realMetrics,
      estimated,
      updatedAt: lastUpdated,
      copies: copyStats,
      audit: { audited: audits.size, byLevel, findingsByRule },
    },
    categories,
  };
  out.recordManifest(manifest);
  return manifest;
}
