// What the prerendered pages read: the runtime artifacts of the build being made (the "index" stage's
// listings.jsonl, manifest.json and files/), named by CATALOG_RUNTIME_DIR, with the public origin in
// CATALOG_BASE_URL. Loaded once per build and shared by every page. The top lists and shortlists come from the
// streaming catalog view (src/catalog-view/), the one llms.txt and the feeds read, and every order from the
// ranking module, so the pages, the API and llms-full.txt put a listing in the same place.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { readRuntimeManifest, runtimeFilesPath } from '../artifacts/runtime-manifest.ts';
import { categoryKey, readRuntimeListings, TopListsCollector } from '../catalog-view/catalog-view.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../domain/listing/listing-types.ts';
import type { StoredListing } from '../domain/listing/listing-view.ts';
import { compareBy } from '../domain/listing/ranking.ts';
import type { CatalogStats, Category, ListingFile } from '../domain/schemas.ts';
import { SITE_PATHS } from '../domain/site-paths.ts';
import { OWNER_PAGE_MIN_LISTINGS, ownerKey, ownerStats, ownerTable, type OwnerTable } from '../domain/listing/owner-figures.ts';
import { fnv1a, RANK_PARTS, rankPart, type RankPart } from './rank-parts.ts';

/** A listing as the pages use it: the stored listing with its install history packed, its page URL and ranks. */
export type PageListing = Omit<StoredListing, 'installsHistory'> & {
  /** Line of listings.jsonl: the name of its stored files (files/<doc>.json). */
  doc: number;
  url: string;
  /** The daily cumulative installs (the install-history chart), packed in one typed array rather than numbers in arrays. */
  history: Uint32Array;
  /** Place among the listings of its type by installs and by stars (1 = most), of `of` (same order as the API's sorts). */
  rank: { installs: number; stars: number; of: number };
  /** Listings of the catalog in its repository, this one included: its stars are the repository's, shared by them. */
  repoListings: number;
};

export interface CatalogCategory extends Category {
  /** The first TOP_SIZES.category listings of the category, ranked by the type's metric. */
  top: PageListing[];
  /** The comparison shortlist (src/domain/listing/shortlists.ts), or undefined where there is none. */
  shortlist: PageListing[] | undefined;
}

export interface CatalogData {
  baseUrl: string;
  runtimeDir: string;
  count: number;
  lastUpdated: string;
  stats: CatalogStats;
  /** The listings of this process's owners (all of them unless shared out: rendersOwner), in the default order. */
  listings: PageListing[];
  /** Of those, the ones whose page is rendered: all, or in an incremental build the changed ones (see pagePlan). */
  renderListings: PageListing[];
  /** The owners (ownerKey) whose page is rendered: this process's owners with a page, all or the changed ones. */
  renderOwners: string[];
  /** The rank parts this process writes (SITE_PATHS.ranks): part → its listings' ranks. */
  rankParts: Map<number, RankPart>;
  /** The first TOP_SIZES.perType listings of each type, ranked by the type's metric. */
  topByType: Record<ListingType, PageListing[]>;
  /** Categories of each type, in the manifest's order (by slug). */
  categoriesByType: Record<ListingType, CatalogCategory[]>;
  /** Per-owner figures, as GET /api/v1/owners/{owner}/stats gives them. */
  owners: OwnerTable;
  /** Lower-cased owner → its listings, each type's by its ranking metric, for the owners this process renders. */
  listingsByOwner: Map<string, PageListing[]>;
  /** Listing id → the listing, for every listing of a copy group (a copy's page links its origin, whoever renders it). */
  byId: Map<string, CopyRef>;
  /** Origin id → its copies, in the default order (an origin's page lists where else it is published). */
  copiesOf: Map<string, CopyRef[]>;
  /** repoTypeKey(type, repo) → listings of that type in that repository (the rest behind a capped top list). */
  listingsPerRepo: Map<string, number>;
}

/** The key of a (type, repository) in CatalogData.listingsPerRepo. */
export const repoTypeKey = (type: ListingType, repo: string): string => `${type}:${repo.toLowerCase()}`;

/** What a copy's or an origin's page shows of the other listings of its group; kept for every such listing. */
export type CopyRef = Pick<PageListing, 'id' | 'slug' | 'name' | 'repo' | 'description' | 'doc' | 'files' | 'copyOf' | 'copyKind'>;

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the pages are built by the build's site stage (npm run build), which sets it`);
  return value;
}

/** What a renderer keeps of every listing, rendered by it or not: what ranks and owner figures are computed from. */
interface RankRow {
  id: string;
  slug: string;
  type: ListingType;
  repo: string;
  installs: number;
  stars: number;
  trending: number;
  searchTrend: number;
  /** Which figures are real: a rank rests on real figures only (ranking.ts), and so do the owner sums. */
  metrics: PageListing['metrics'];
  installsReal: boolean;
  starsReal: boolean;
  /** Shared with the listing's PageListing, where this renderer holds one. */
  rank: PageListing['rank'];
}

async function load(runtimeDir: string, baseUrl: string): Promise<CatalogData> {
  const manifest = readRuntimeManifest(runtimeDir);
  // Every listing is read, for the ranks, the owner figures and the top lists; only this renderer's listings (those
  // of its owners) are kept whole, so a renderer's memory is its share of the pages plus a small row per listing.
  const rows: RankRow[] = [];
  const repoCounters = new Map<string, { count: number }>();
  const listings: PageListing[] = [];
  const copyRefs: CopyRef[] = [];
  const top = new TopListsCollector<PageListing>(manifest.categories, { item: (listing) => listing, categoryTop: true });
  for await (const { installsHistory, ...stored } of readRuntimeListings(runtimeDir)) {
    const rank = { installs: 0, stars: 0, of: 0 };
    // A repository's listing count is known once every listing is read: each listing reads it from its repository's counter.
    const repoKey = stored.repo.toLowerCase();
    let counter = repoCounters.get(repoKey);
    if (!counter) repoCounters.set(repoKey, (counter = { count: 0 }));
    counter.count++;
    const shared = counter;
    const listing: PageListing = {
      ...stored,
      doc: rows.length,
      url: baseUrl + SITE_PATHS.listing(stored.slug),
      history: Uint32Array.from(installsHistory),
      rank,
      get repoListings() {
        return shared.count;
      },
    };
    rows.push({
      id: stored.id,
      slug: stored.slug,
      type: stored.type,
      repo: stored.repo,
      installs: stored.installs,
      stars: stored.stars,
      trending: stored.trending,
      searchTrend: stored.searchTrend,
      metrics: stored.metrics,
      installsReal: stored.metrics.installs === 'real',
      starsReal: stored.metrics.stars === 'real',
      rank,
    });
    if (rendersOwner(ownerKey(stored.repo))) listings.push(listing);
    // A copy group spans owners, and so renderers: its members are kept, small, whichever renderer shows them.
    if (stored.copyOf || stored.copies) {
      const { id, slug, name, repo, description, files, copyOf, copyKind } = stored;
      copyRefs.push({ id, slug, name, repo, description, doc: listing.doc, files, copyOf, copyKind });
    }
    top.offer(listing);
  }
  if (rows.length !== manifest.count) throw new Error(`listings.jsonl has ${rows.length} listings, the manifest says ${manifest.count}`);
  const listingsPerRepo = new Map<string, number>();
  for (const row of rows) listingsPerRepo.set(repoTypeKey(row.type, row.repo), (listingsPerRepo.get(repoTypeKey(row.type, row.repo)) ?? 0) + 1);

  const byType = Object.fromEntries(LISTING_TYPES.map((type) => [type, [] as RankRow[]])) as Record<ListingType, RankRow[]>;
  for (const row of rows) byType[row.type].push(row);
  for (const list of Object.values(byType)) {
    for (const sort of ['installs', 'stars'] as const) {
      [...list].sort(compareBy(sort)).forEach((row, i) => {
        row.rank[sort] = i + 1;
        row.rank.of = list.length;
      });
    }
  }
  const view = top.finish();
  const categoriesByType = Object.fromEntries(LISTING_TYPES.map((type) => [type, [] as CatalogCategory[]])) as Record<ListingType, CatalogCategory[]>;
  for (const category of manifest.categories) {
    const key = categoryKey(category.type, category.name);
    categoriesByType[category.type].push({ ...category, top: view.categoryTop.get(key)!, shortlist: view.shortlists.get(key) });
  }
  const owners = ownerTable(rows);
  const rankParts = new Map<number, RankPart>();
  for (let part = 0; part < RANK_PARTS; part++) if (inRenderShard(part)) rankParts.set(part, { listings: {}, owners: {} });
  for (const row of rows) {
    const part = rankParts.get(rankPart(row.slug));
    if (part) part.listings[row.slug] = [row.rank.installs, row.rank.stars, row.rank.of];
  }
  rows.length = 0;
  const listingsByOwner = new Map<string, PageListing[]>();
  for (const type of LISTING_TYPES) {
    for (const listing of listings.filter((l) => l.type === type).sort(compareBy(RANKING_METRIC[type]))) {
      const key = ownerKey(listing.repo);
      const list = listingsByOwner.get(key);
      if (list) list.push(listing);
      else listingsByOwner.set(key, [listing]);
    }
  }
  // Every owner with a page (any renderer's: a part holds the owners whose names hash to it).
  for (const [owner, { byType }] of owners.owners) {
    const count = Object.values(byType).reduce((sum, figures) => sum + figures.count, 0);
    const part = count >= OWNER_PAGE_MIN_LISTINGS ? rankParts.get(rankPart(owner)) : undefined;
    if (!part) continue;
    const ranks: RankPart['owners'][string] = {};
    for (const type of LISTING_TYPES) {
      const rank = owners.ranks[type].get(owner);
      if (rank !== undefined) ranks[type] = [rank, owners.ownersPerType[type]];
    }
    part.owners[owner] = ranks;
  }
  const byId = new Map(copyRefs.map((listing) => [listing.id, listing]));
  const copiesOf = new Map<string, CopyRef[]>();
  for (const listing of copyRefs) {
    if (!listing.copyOf) continue;
    const list = copiesOf.get(listing.copyOf);
    if (list) list.push(listing);
    else copiesOf.set(listing.copyOf, [listing]);
  }
  const data = {
    baseUrl,
    runtimeDir,
    count: manifest.count,
    lastUpdated: manifest.lastUpdated,
    stats: manifest.stats,
    listings,
    topByType: view.byType,
    categoriesByType,
    owners,
    listingsByOwner,
    byId,
    copiesOf,
    listingsPerRepo,
  };
  return { ...data, ...(await pagePlan(data)), rankParts };
}

/** The site path of a listing's and of an owner's page file (Astro writes <param>/index.html). */
const listingPageFile = (slug: string) => `listings/${slug}/index.html`;
const ownerPageFile = (owner: string) => `owners/${owner}/index.html`;

/**
 * Which of this process's listing and owner pages are rendered. Each page's inputs (everything it shows) are
 * hashed; CATALOG_PREVIOUS_PAGES names the build being replaced's page inputs (build/stages/site-stage.ts
 * PAGE_INPUTS_FILE: after a header, lines "<file>\t<hash>\t<owner>\t<variants>") and CATALOG_PREVIOUS_SITE its site: a
 * page whose hash is the same there and whose file is still there is not rendered, and the site stage links the
 * previous build's file (and the variants it names, .br and .gz) in. CATALOG_PAGE_INPUTS names where this process
 * writes every one of its pages' lines "<file>\t<hash>\t<owner>\t<1 rendered | 0 carried>\t<variants of a carried
 * page>", and says so over IPC ({ pageInputs }) at once, so that the stage links the unchanged pages while this
 * process renders the others. Neither set: every page is rendered. The previous hashes are streamed and only this
 * process's owners' kept, as the pages are shared out.
 */
async function pagePlan(
  data: Omit<CatalogData, 'renderListings' | 'renderOwners' | 'rankParts'>,
): Promise<Pick<CatalogData, 'renderListings' | 'renderOwners'>> {
  const previousPath = process.env.CATALOG_PREVIOUS_PAGES;
  const previousSite = process.env.CATALOG_PREVIOUS_SITE;
  const outPath = process.env.CATALOG_PAGE_INPUTS;
  const owners = [...data.listingsByOwner].filter(([, listings]) => listings.length >= OWNER_PAGE_MIN_LISTINGS).map(([owner]) => owner);
  if (!outPath) return { renderListings: data.listings, renderOwners: owners };
  /** File → [hash, variants] of the previous build's pages of this process's owners. */
  const previous = new Map<string, [string, string | undefined]>();
  if (previousPath && previousSite) {
    for await (const line of createInterface({ input: createReadStream(previousPath), crlfDelay: Infinity })) {
      const [file, hash, owner, variants] = line.split('\t');
      if (file && hash && owner !== undefined && rendersOwner(owner)) previous.set(file, [hash, variants]);
    }
  }
  const lines: string[] = [];
  /** The line of a page, and whether it is rendered: not when its inputs are the same and its file is still there. */
  const plan = (file: string, hash: string, owner: string): boolean => {
    const before = previous.get(file);
    const carried = before !== undefined && before[0] === hash && existsSync(join(previousSite!, file));
    lines.push(`${file}\t${hash}\t${owner}\t${carried ? `0\t${before[1] ?? ''}` : '1\t'}`);
    return !carried;
  };
  const listingHashes = new Map<string, string>();
  const renderListings = data.listings.filter((listing) => {
    const hash = listingPageHash(data, listing);
    listingHashes.set(listing.id, hash);
    return plan(listingPageFile(listing.slug), hash, ownerKey(listing.repo));
  });
  const renderOwners = owners.filter((owner) => {
    const hash = createHash('sha256').update(JSON.stringify(ownerPageStats(data.owners, owner)));
    for (const listing of data.listingsByOwner.get(owner)!) hash.update(listingHashes.get(listing.id)!);
    return plan(ownerPageFile(owner), hash.digest('base64url'), owner);
  });
  writeFileSync(outPath, lines.length ? `${lines.join('\n')}\n` : '');
  process.send?.({ pageInputs: outPath });
  return { renderListings, renderOwners };
}

/**
 * The owner figures an owner page shows: GET /api/v1/owners/{owner}/stats's without the ranks among owners, which the
 * page's script reads from SITE_PATHS.ranks (they move whenever another owner's sum passes this one's).
 */
export function ownerPageStats(table: OwnerTable, owner: string) {
  const stats = ownerStats(table, owner);
  if (!stats) return undefined;
  const byType: Partial<Record<ListingType, Omit<NonNullable<(typeof stats.byType)[ListingType]>, 'rank' | 'owners'>>> = {};
  for (const type of LISTING_TYPES) {
    const figures = stats.byType[type];
    if (!figures) continue;
    const { rank: _rank, owners: _owners, ...shown } = figures;
    byType[type] = shown;
  }
  return { ...stats, byType };
}

/**
 * What a listing's page shows, hashed: the listing (its ranks excepted: they are loaded from SITE_PATHS.ranks),
 * its stored files, its repository's and owner's listing counts and the listings of its copy group. Whatever the
 * page template (site/pages/listings/[slug].astro) shows must be in here; the template itself is in the build's code
 * fingerprint, which a carried page must share (build/stages/site-stage.ts).
 */
function listingPageHash(data: Pick<CatalogData, 'listingsByOwner' | 'byId' | 'copiesOf' | 'runtimeDir'>, listing: PageListing): string {
  // doc (a line number) and url (the origin and slug) change nothing the page shows that the rest does not say.
  const { doc: _doc, url: _url, history, rank: _rank, ...shown } = listing;
  const hash = createHash('sha256')
    .update(JSON.stringify(shown))
    .update(Buffer.from(history.buffer, history.byteOffset, history.byteLength));
  hash.update(`\0${data.listingsByOwner.get(ownerKey(listing.repo))?.length ?? 0}`);
  const filesOf = (ref: Pick<PageListing, 'files' | 'doc'>) => {
    const path = join(data.runtimeDir, runtimeFilesPath(ref.doc));
    if (ref.files.length > 0 && existsSync(path)) hash.update(readFileSync(path));
    hash.update('\0');
  };
  filesOf(listing);
  const origin = listing.copyOf ? data.byId.get(listing.copyOf) : undefined;
  if (origin) {
    const { doc: _originDoc, ...originShown } = origin;
    hash.update(JSON.stringify(originShown));
    if (listing.copyKind === 'modified') filesOf(origin);
  }
  for (const { doc: _copyDoc, ...copy } of data.copiesOf.get(listing.id) ?? []) hash.update(JSON.stringify(copy));
  return hash.digest('base64url');
}

let loaded: Promise<CatalogData> | undefined;

/** The catalog of the build being made; read on first use, then shared by every page of the build. */
export function loadCatalog(): Promise<CatalogData> {
  loaded ??= load(requiredEnv('CATALOG_RUNTIME_DIR'), requiredEnv('CATALOG_BASE_URL').replace(/\/+$/, ''));
  return loaded;
}

/** Stored files of a listing, SKILL.md first; [] when none are stored. */
export function listingFiles(data: CatalogData, listing: Pick<PageListing, 'files' | 'doc'>): ListingFile[] {
  if (listing.files.length === 0) return [];
  const path = join(data.runtimeDir, runtimeFilesPath(listing.doc));
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ListingFile[]) : [];
}

let rendered = 0;

/**
 * The share of the per-listing and per-owner pages this Astro process renders: CATALOG_RENDER_SHARD is "i/n"
 * when the site stage splits them between n processes (see build/stages/site-stage.ts); every other page is small in
 * number and rendered by each. Unset: everything. Pages are shared out by owner, so the listings an owner page
 * shows are the ones its renderer renders and holds.
 */
const RENDER_SHARD = (() => {
  const match = /^(\d+)\/(\d+)$/.exec(process.env.CATALOG_RENDER_SHARD ?? '');
  return match ? { index: Number(match[1]), of: Number(match[2]) } : { index: 0, of: 1 };
})();

/** Whether this process writes the rank part `part` (SITE_PATHS.ranks): part mod n. */
function inRenderShard(part: number): boolean {
  return part % RENDER_SHARD.of === RENDER_SHARD.index;
}

/** Whether this process renders the pages of this owner (ownerKey) and of its listings: FNV-1a of the key, mod n. */
export function rendersOwner(owner: string): boolean {
  if (RENDER_SHARD.of === 1) return true;
  return fnv1a(owner) % RENDER_SHARD.of === RENDER_SHARD.index;
}

/**
 * Counts a rendered listing page; every 1,000 pages the count goes to the build stage over IPC (when the build
 * runs in a child process with a channel), which drives its progress bar.
 */
export function countRenderedPage(): void {
  rendered++;
  if (rendered % 1000 === 0) process.send?.({ rendered });
}
