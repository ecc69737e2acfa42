// The "index" stage: SQLite → the artifacts the shim loads at start without re-indexing anything:
// listing JSON lines with byte offsets, numeric columns and sort orders, filter postings, the exported
// FlexSearch indexes, stored files, and a manifest with stats and categories.
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { LISTING_TYPES, typeCode, type ListingType } from '../src/domain/listing-types.ts';
import { categoryLabel } from '../src/domain/categories.ts';
import { popularityPrior, trendingScore } from '../src/domain/ranking.ts';
import { createEncoder, createSearchIndexes, fieldTexts, SEARCH_FIELDS } from '../src/domain/search-index.ts';
import { toStoredListing } from '../src/domain/listing-view.ts';
import type { ListingRecord, CatalogStats, Category, ListingFile } from '../src/domain/schemas.ts';
import { readMeta, type CatalogDb } from './catalog-db.ts';
import { writeColumns, type ColumnLayout } from './columns-file.ts';

export const RUNTIME_FORMAT = 1;

export interface RuntimeManifest {
  format: number;
  snapshotHash: string;
  lastUpdated: string;
  count: number;
  columns: ColumnLayout;
  postings: Record<string, [offset: number, length: number]>;
  search: Record<string, string[]>;
  filesStored: number;
  stats: CatalogStats;
  categories: Category[];
}

export interface RuntimeBuildOptions {
  db: CatalogDb;
  outDir: string;
  /** searchTrend per listing id, folded in by the rebuild from the shim's counters. */
  searchTrend?: ReadonlyMap<string, number>;
  onProgress?: (done: number, total: number) => void;
}

/** Trending reads the newest 30 days of the stored history (7-day window against the 23 days before it). */
export const TRENDING_HISTORY_DAYS = 30;

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function buildRuntimeArtifacts(options: RuntimeBuildOptions): Promise<RuntimeManifest> {
  const { db, outDir } = options;
  mkdirSync(join(outDir, 'search'), { recursive: true });
  mkdirSync(join(outDir, 'files'), { recursive: true });
  const meta = readMeta(db);

  // Pass 1: the numbers that decide the document order (installs desc, id asc) and the other sorts.
  const rows = db
    .prepare('SELECT l.id, l.type, l.installs, l.stars, h.daily FROM listing l JOIN install_history h ON h.listing_id = l.id ORDER BY l.installs DESC, l.id ASC')
    .raw()
    .all() as Array<[string, ListingType, number, number, string]>;
  const count = rows.length;
  const ids: string[] = new Array(count);
  const type = new Uint8Array(count);
  const installs = new Uint32Array(count);
  const stars = new Uint32Array(count);
  const trending = new Float32Array(count);
  const searchTrend = new Float32Array(count);
  const popularity = new Float32Array(count);
  const nameTerms = new Uint8Array(count);
  const trendingById = new Map<string, number>();
  rows.forEach(([id, t, inst, st, daily], doc) => {
    ids[doc] = id;
    type[doc] = typeCode(t);
    installs[doc] = Math.min(inst, 0xffffffff);
    stars[doc] = Math.min(st, 0xffffffff);
    const history = (JSON.parse(daily) as number[]).slice(-TRENDING_HISTORY_DAYS);
    const score = trendingScore(history);
    trending[doc] = score;
    trendingById.set(id, score);
    searchTrend[doc] = options.searchTrend?.get(id) ?? 0;
    popularity[doc] = popularityPrior(t, inst, st);
  });
  rows.length = 0;

  // idRank: position of each id in ascending id order, the tie-break of every sort.
  const byId = Array.from({ length: count }, (_, i) => i).sort((a, b) => compareIds(ids[a]!, ids[b]!));
  const idRank = new Uint32Array(count);
  byId.forEach((doc, rank) => (idRank[doc] = rank));
  const order = (value: Float32Array | Uint32Array): Uint32Array => {
    const perm = Uint32Array.from({ length: count }, (_, i) => i);
    perm.sort((a, b) => value[b]! - value[a]! || idRank[a]! - idRank[b]!);
    return perm;
  };
  const permStars = order(stars);
  const permTrending = order(trending);
  const permSearchTrend = order(searchTrend);
  const inverse = (perm: Uint32Array): Uint32Array => {
    const rank = new Uint32Array(count);
    perm.forEach((doc, pos) => (rank[doc] = pos));
    return rank;
  };

  // Pass 2: listing JSON lines in document order, the search indexes and the filter postings.
  const indexes = createSearchIndexes();
  const encoder = createEncoder();
  const postings = new Map<string, number[]>();
  const post = (key: string, doc: number) => {
    const list = postings.get(key);
    if (!list) postings.set(key, [doc]);
    else if (list[list.length - 1] !== doc) list.push(doc);
  };
  const offsets = new Float64Array(count + 1);
  const listingsOut = createWriteStream(join(outDir, 'listings.jsonl'));
  let bytes = 0;
  let doc = 0;
  const byType = Object.fromEntries(LISTING_TYPES.map((t) => [t, 0])) as Record<ListingType, number>;
  const installsByType = { ...byType };
  const realMetrics = { ...byType };
  const categoryCounts = new Map<string, number>();
  let totalInstalls = 0;
  const docOf = new Map<string, number>();
  ids.forEach((id, i) => docOf.set(id, i));
  for (const [json] of db.prepare('SELECT record FROM listing ORDER BY installs DESC, id ASC').raw().iterate() as Iterable<[string]>) {
    const record = JSON.parse(json) as ListingRecord;
    if (ids[doc] !== record.id) throw new Error(`document order changed while reading ${record.id}`);
    const view = toStoredListing(record, { trending: trending[doc]!, searchTrend: searchTrend[doc]! });
    const line = JSON.stringify(view) + '\n';
    offsets[doc] = bytes;
    bytes += Buffer.byteLength(line);
    if (!listingsOut.write(line)) await once(listingsOut, 'drain');

    const texts = fieldTexts(record);
    for (const field of SEARCH_FIELDS) if (texts[field]) indexes[field].add(doc, texts[field]);
    nameTerms[doc] = Math.min(255, encoder.encode(record.name).length);

    for (const category of view.categories) {
      post(`c:${category}`, doc);
      categoryCounts.set(`${record.type}\u0000${category}`, (categoryCounts.get(`${record.type}\u0000${category}`) ?? 0) + 1);
    }
    post(`o:${record.repo.split('/')[0]!.toLowerCase()}`, doc);
    post(`o:${record.author.toLowerCase()}`, doc);

    byType[record.type]++;
    installsByType[record.type] += record.installs;
    totalInstalls += record.installs;
    if (record.metricsSource === 'real') realMetrics[record.type]++;
    doc++;
    if (doc % 5000 === 0) options.onProgress?.(doc, count);
  }
  offsets[count] = bytes;
  listingsOut.end();
  await once(listingsOut, 'close');
  if (doc !== count) throw new Error(`expected ${count} listings, read ${doc}`);
  options.onProgress?.(count, count);

  // Postings as one Uint32Array; keys sorted so the file is deterministic.
  const postingIndex: Record<string, [number, number]> = {};
  let total = 0;
  const keys = [...postings.keys()].sort();
  for (const key of keys) total += postings.get(key)!.length;
  const postingData = new Uint32Array(total);
  let at = 0;
  for (const key of keys) {
    const list = postings.get(key)!;
    postingIndex[key] = [at, list.length];
    postingData.set(list, at);
    at += list.length;
  }

  const columns = writeColumns(join(outDir, 'columns.bin'), {
    offsets,
    type,
    installs,
    stars,
    trending,
    searchTrend,
    popularity,
    nameTerms,
    idRank,
    permStars,
    permTrending,
    permSearchTrend,
    rankStars: inverse(permStars),
    rankTrending: inverse(permTrending),
    rankSearchTrend: inverse(permSearchTrend),
    postings: postingData,
  });
  writeFileSync(join(outDir, 'ids.txt'), ids.join('\n'));

  const search: Record<string, string[]> = {};
  for (const field of SEARCH_FIELDS) {
    search[field] = [];
    const chunks: Array<[string, string]> = [];
    await indexes[field].export((key: string, data: string) => {
      chunks.push([key, data]);
    });
    for (const [key, data] of chunks) {
      const file = `${field}.${key}.json`;
      writeFileSync(join(outDir, 'search', file), data);
      search[field].push(file);
    }
  }

  // Stored files, one JSON array of ListingFile per listing that has any (SKILL.md first, then path order).
  let filesStored = 0;
  let current: { id: string; files: ListingFile[] } | undefined;
  const flush = () => {
    if (!current) return;
    writeFileSync(join(outDir, 'files', `${docOf.get(current.id)}.json`), JSON.stringify(current.files));
    filesStored++;
  };
  for (const row of db.prepare('SELECT listing_id, path, size, media_type, content FROM listing_file ORDER BY listing_id, ord').raw().iterate() as Iterable<[string, string, number, string, string]>) {
    const [id, path, size, mediaType, content] = row;
    if (current?.id !== id) {
      flush();
      current = { id, files: [] };
    }
    current.files.push({ path, size, mediaType, content });
  }
  flush();

  const lastUpdated = meta.lastUpdated ?? new Date(0).toISOString();
  const categories: Category[] = [...categoryCounts.entries()]
    .map(([key, n]) => {
      const [t, name] = key.split('\u0000') as [ListingType, string];
      return { type: t, name, label: categoryLabel(name), count: n };
    })
    .sort((a, b) => LISTING_TYPES.indexOf(a.type) - LISTING_TYPES.indexOf(b.type) || compareIds(a.name, b.name));
  const manifest: RuntimeManifest = {
    format: RUNTIME_FORMAT,
    snapshotHash: meta.snapshotHash ?? '',
    lastUpdated,
    count,
    columns,
    postings: postingIndex,
    search,
    filesStored,
    stats: { total: count, byType, installs: totalInstalls, installsByType, realMetrics, updatedAt: lastUpdated },
    categories,
  };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest));
  return manifest;
}
