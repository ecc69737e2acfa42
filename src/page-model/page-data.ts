// What the prerendered pages read: the runtime artifacts of the build being made (the "index" stage's
// page-rows.jsonl, listings.jsonl, manifest.json and files/), named by CATALOG_RUNTIME_DIR, with the public origin in
// CATALOG_BASE_URL. Loaded once per build and shared by every page. The top lists and shortlists come from the
// streaming catalog view (src/catalog-view/), the one llms.txt and the feeds read, and every order from the
// ranking module, so the pages, the API and llms-full.txt put a listing in the same place.
import { createHash, hash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileLines } from '../artifacts/file-lines.ts';
import { readPageRows, RUNTIME_PAGE_ROWS_FILE, type PageRow } from '../artifacts/page-rows.ts';
import { readRuntimeManifest, RUNTIME_LISTINGS_FILE, runtimeFilesPath } from '../artifacts/runtime-manifest.ts';
import { categoryKey, TopListsCollector } from '../catalog-view/catalog-view.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../domain/listing/listing-types.ts';
import type { StoredListing } from '../domain/listing/listing-view.ts';
import { compareBy, type FigureProvenance } from '../domain/listing/ranking.ts';
import type { CatalogStats, Category, ListingFile } from '../domain/schemas.ts';
import { SITE_PATHS } from '../domain/site-paths.ts';
import { OWNER_PAGE_LISTINGS_PER_TYPE, OWNER_PAGE_MIN_LISTINGS, ownerKey, ownerStats, ownerTable, type OwnerTable } from '../domain/listing/owner-figures.ts';
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
  /** The listings whose page this process renders: its owners' (all of them unless shared out: rendersOwner), or in an incremental build the changed ones (see pagePlan). */
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
  /**
   * Lower-cased owner → the listings its page shows (each type's first OWNER_PAGE_LISTINGS_PER_TYPE by its ranking
   * metric), for the owners whose page this process renders.
   */
  listingsByOwner: Map<string, PageListing[]>;
  /** Lower-cased owner → how many listings it has in the catalog, for every owner. */
  ownerListings: Map<string, number>;
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

/**
 * What a renderer keeps of every listing, rendered by it or not: what ranks, owner figures and page hashes are computed
 * from. Its figures and names are its page row's (src/artifacts/page-rows.ts); `metrics` is one object per
 * combination, shared by the rows (provenance); `hash` is the line's, then (pagePlan) that of its page's inputs.
 */
interface RankRow extends Pick<PageRow, 'id' | 'slug' | 'type' | 'repo' | 'installs' | 'stars' | 'trending' | 'searchTrend' | 'metrics' | 'hash' | 'files'> {
  installsReal: boolean;
  starsReal: boolean;
  /** Shared with the listing's PageListing, where this renderer holds one. */
  rank: PageListing['rank'];
  /** Its line of listings.jsonl (PageListing.doc). */
  doc: number;
  /** Whether it is in a copy group (CatalogData.byId holds it). */
  copy: boolean;
  /** The variants of the previous build's page, where that is carried (pagePlan). */
  carried: string | undefined;
}

/** The figures' provenance of a row: one object per combination, not one per listing. */
const provenances = new Map<string, FigureProvenance>();
function provenance({ installs, stars, history }: FigureProvenance): FigureProvenance {
  const key = `${installs} ${stars} ${history}`;
  let shared = provenances.get(key);
  if (!shared) provenances.set(key, (shared = { installs, stars, history }));
  return shared;
}

/** The listing as the pages use it, from its stored form, its line, its ranks and its repository's listing count. */
function pageListing(
  { installsHistory, ...stored }: StoredListing,
  doc: number,
  baseUrl: string,
  rank: PageListing['rank'],
  repo: { count: number },
): PageListing {
  return {
    ...stored,
    doc,
    url: baseUrl + SITE_PATHS.listing(stored.slug),
    history: Uint32Array.from(installsHistory),
    rank,
    // A repository's listing count is known once every listing is read: each listing reads it from its repository's counter.
    get repoListings() {
      return repo.count;
    },
  };
}

/** Where a renderer writes its pages' inputs and which build's it compares them with (pagePlan). */
export interface PageInputsOptions {
  /** CATALOG_PAGE_INPUTS: where this process's pages' inputs are written; unset: every page is rendered. */
  out?: string | undefined;
  /** CATALOG_PREVIOUS_PAGES and CATALOG_PREVIOUS_SITE: the build being replaced's page inputs and site. */
  previous?: { path: string; site: string } | undefined;
  /** Told once `out` is written, before a listing is parsed or a page rendered. */
  onPageInputs?: (path: string) => void;
}

/**
 * The catalog as the pages of this process see it (loadCatalog's, with the page inputs given rather than read from
 * the environment).
 */
export function loadPageData(runtimeDir: string, baseUrl: string, pages: PageInputsOptions = {}): CatalogData {
  const manifest = readRuntimeManifest(runtimeDir);
  const listingsPath = join(runtimeDir, RUNTIME_LISTINGS_FILE);
  const outPath = pages.out;
  // Which pages are rendered is known only once every listing's row is read (an owner's count, a copy group's
  // members, the previous build's inputs): the rows (src/artifacts/page-rows.ts) are read first, then the lines of
  // the listings this process shows whole (its pages' and the top lists') are parsed, and no other.
  const compared = outPath !== undefined && pages.previous !== undefined;
  const rows: RankRow[] = [];
  const repoCounters = new Map<string, { count: number }>();
  const copyRefs: CopyRef[] = [];
  // The top lists keep rows; the listings left in them at the end are parsed with the others shown whole.
  const top = new TopListsCollector<PageRow & { row: RankRow }, RankRow>(manifest.categories, { item: (offered) => offered.row, categoryTop: true });
  for (const pageRow of readPageRows(runtimeDir)) {
    const { id, slug, type, repo } = pageRow;
    const doc = rows.length;
    const repoKey = repo.toLowerCase();
    let counter = repoCounters.get(repoKey);
    if (!counter) repoCounters.set(repoKey, (counter = { count: 0 }));
    counter.count++;
    const row: RankRow = {
      id,
      slug,
      type,
      repo,
      installs: pageRow.installs,
      stars: pageRow.stars,
      trending: pageRow.trending,
      searchTrend: pageRow.searchTrend,
      metrics: provenance(pageRow.metrics),
      installsReal: pageRow.metrics.installs === 'real',
      starsReal: pageRow.metrics.stars === 'real',
      rank: { installs: 0, stars: 0, of: 0 },
      doc,
      hash: pageRow.hash,
      files: pageRow.files,
      copy: pageRow.copy !== undefined,
      carried: undefined,
    };
    rows.push(row);
    // A copy group spans owners, and so renderers: its members are kept, small, whichever renderer shows them.
    if (pageRow.copy) {
      const { name, description, files, copyOf, copyKind } = pageRow.copy;
      copyRefs.push({ id, slug, name, repo, description, doc, files, copyOf, copyKind });
    }
    top.offer(Object.assign(pageRow, { row }));
  }
  if (rows.length !== manifest.count) throw new Error(`${RUNTIME_PAGE_ROWS_FILE} has ${rows.length} listings, the manifest says ${manifest.count}`);
  const listingsPerRepo = new Map<string, number>();
  const ownerListings = new Map<string, number>();
  for (const row of rows) {
    const repoType = repoTypeKey(row.type, row.repo);
    listingsPerRepo.set(repoType, (listingsPerRepo.get(repoType) ?? 0) + 1);
    const owner = ownerKey(row.repo);
    ownerListings.set(owner, (ownerListings.get(owner) ?? 0) + 1);
  }

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
  const lists = top.finish();
  const owners = ownerTable(rows);
  const rankParts = new Map<number, RankPart>();
  for (let part = 0; part < RANK_PARTS; part++) if (inRenderShard(part)) rankParts.set(part, { listings: {}, owners: {} });
  for (const row of rows) {
    const part = rankParts.get(rankPart(row.slug));
    if (part) part.listings[row.slug] = [row.rank.installs, row.rank.stars, row.rank.of];
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
  const plan = pagePlan(
    { rows, runtimeDir, owners, ownerListings, repoCounters, byId, copiesOf },
    { outPath, previous: compared ? pages.previous : undefined },
  );
  if (outPath) pages.onPageInputs?.(outPath);
  // The lines shown whole: the pages rendered, the listings the owner pages rendered list, and the top lists'.
  const need = plan.need;
  const topLists = [...LISTING_TYPES.map((type) => lists.byType[type]), ...lists.categoryTop.values(), ...lists.shortlists.values()];
  for (const list of topLists) for (const row of list) need[row.doc]! |= TOP_LISTED;
  const parsed = new Map<number, PageListing>();
  const renderListings: PageListing[] = [];
  let doc = 0;
  for (const bytes of fileLines(listingsPath)) {
    const wanted = need[doc];
    if (wanted) {
      const row = rows[doc]!;
      const stored = JSON.parse(bytes.toString()) as StoredListing;
      if (stored.id !== row.id) throw new Error(`${RUNTIME_PAGE_ROWS_FILE} and ${RUNTIME_LISTINGS_FILE} differ at line ${doc + 1}`);
      const listing = pageListing(stored, doc, baseUrl, row.rank, repoCounters.get(row.repo.toLowerCase())!);
      parsed.set(doc, listing);
      if (wanted & RENDER_LISTING) renderListings.push(listing);
    }
    doc++;
  }
  if (doc !== rows.length) throw new Error(`${RUNTIME_LISTINGS_FILE} has ${doc} listings, ${RUNTIME_PAGE_ROWS_FILE} ${rows.length}`);
  const page = (row: RankRow) => parsed.get(row.doc)!;
  const categoriesByType = Object.fromEntries(LISTING_TYPES.map((type) => [type, [] as CatalogCategory[]])) as Record<ListingType, CatalogCategory[]>;
  for (const category of manifest.categories) {
    const key = categoryKey(category.type, category.name);
    categoriesByType[category.type].push({ ...category, top: lists.categoryTop.get(key)!.map(page), shortlist: lists.shortlists.get(key)?.map(page) });
  }
  // The listings each owner page shows, in the page's order (pagePlan), every one of them parsed above (LISTED).
  const listingsByOwner = new Map([...plan.renderOwners].map(([owner, shown]) => [owner, shown.map(page)]));
  return {
    baseUrl,
    runtimeDir,
    count: manifest.count,
    lastUpdated: manifest.lastUpdated,
    stats: manifest.stats,
    renderListings,
    renderOwners: [...plan.renderOwners.keys()],
    rankParts,
    topByType: Object.fromEntries(LISTING_TYPES.map((type) => [type, lists.byType[type].map(page)])) as Record<ListingType, PageListing[]>,
    categoriesByType,
    owners,
    ownerListings,
    listingsByOwner,
    byId,
    copiesOf,
    listingsPerRepo,
  };
}

/** The site path of a listing's and of an owner's page file (one file each in a shared folder: astro.config.mjs). */
const listingPageFile = (slug: string) => `listings/${slug}.html`;
const ownerPageFile = (owner: string) => `owners/${owner}.html`;
const LISTING_PAGE = /^listings\/([^/]+)\.html$/;
const OWNER_PAGE = /^owners\/([^/]+)\.html$/;

/** PagePlan.need: the listing's page is rendered; its owner's page is, which lists it; (loadPageData) a top list shows it. */
const RENDER_LISTING = 1;
const LISTED = 2;
const TOP_LISTED = 4;

interface PlanInputs {
  rows: RankRow[];
  runtimeDir: string;
  owners: OwnerTable;
  ownerListings: ReadonlyMap<string, number>;
  repoCounters: ReadonlyMap<string, { count: number }>;
  byId: ReadonlyMap<string, CopyRef>;
  copiesOf: ReadonlyMap<string, CopyRef[]>;
}

/**
 * Which of this process's listing and owner pages are rendered. Each page's inputs (everything it shows) are
 * hashed; `previous.path` (CATALOG_PREVIOUS_PAGES) names the build being replaced's page inputs
 * (build/stages/site-stage.ts PAGE_INPUTS_FILE: after a header, lines "<file>\t<hash>\t<owner>\t<variants>") and
 * `previous.site` (CATALOG_PREVIOUS_SITE) its site: a page whose hash is the same there and whose file is still there
 * is not rendered, and the site stage links the previous build's file (and the variants it names, .br and .gz) in.
 * `outPath` (CATALOG_PAGE_INPUTS) names where this process writes every one of its pages' lines
 * "<file>\t<hash>\t<owner>\t<1 rendered | 0 carried>\t<variants of a carried page>", which loadCatalog says over IPC
 * ({ pageInputs }) at once, so that the stage links the unchanged pages while this process renders the others.
 * Neither set: every page is rendered. `need` has, per line of listings.jsonl, RENDER_LISTING and LISTED: the lines
 * held whole; `renderOwners`, the owners whose page is rendered, each with the rows its page shows in their order.
 */
function pagePlan(
  inputs: PlanInputs,
  options: { outPath: string | undefined; previous: { path: string; site: string } | undefined },
): { need: Uint8Array; renderOwners: Map<string, RankRow[]> } {
  const { rows, owners: table, ownerListings } = inputs;
  const need = new Uint8Array(rows.length);
  // This process's listings, and its owners with a page, each owner's listings in its page's order (by type, then by
  // the type's metric).
  const mine = rows.filter((row) => rendersOwner(ownerKey(row.repo)));
  // Each owner's page's listings: its first OWNER_PAGE_LISTINGS_PER_TYPE of each type.
  const ownerRows = new Map<string, RankRow[]>();
  for (const type of LISTING_TYPES) {
    const shown = new Map<string, number>();
    for (const row of mine.filter((r) => r.type === type).sort(compareBy(RANKING_METRIC[type]))) {
      const key = ownerKey(row.repo);
      if ((ownerListings.get(key) ?? 0) < OWNER_PAGE_MIN_LISTINGS) continue;
      const count = shown.get(key) ?? 0;
      if (count >= OWNER_PAGE_LISTINGS_PER_TYPE) continue;
      shown.set(key, count + 1);
      const list = ownerRows.get(key);
      if (list) list.push(row);
      else ownerRows.set(key, [row]);
    }
  }
  if (!options.outPath) {
    for (const row of mine) need[row.doc] = RENDER_LISTING | LISTED;
    return { need, renderOwners: ownerRows };
  }
  const files = new Map<number, string>();
  for (const row of mine) row.hash = listingPageHash(inputs, row, files);
  const ownerPages = new Map<string, { hash: string; carried: string | undefined }>();
  for (const [owner, list] of ownerRows) {
    const digest = createHash('sha256').update(JSON.stringify(ownerPageStats(table, owner)));
    for (const row of list) digest.update(row.hash);
    ownerPages.set(owner, { hash: digest.digest('base64url'), carried: undefined });
  }
  if (options.previous) {
    const bySlug = new Map(mine.map((row) => [row.slug, row]));
    for (const bytes of fileLines(options.previous.path)) {
      const [file, previousHash, , variants] = bytes.toString().split('\t');
      if (!file || !previousHash) continue;
      const listing = LISTING_PAGE.exec(file);
      const page = listing ? bySlug.get(listing[1]!) : ownerPages.get(OWNER_PAGE.exec(file)?.[1] ?? '');
      if (page?.hash === previousHash && existsSync(join(options.previous.site, file))) page.carried = variants ?? '';
    }
  }
  const renderOwners = new Map<string, RankRow[]>();
  const out = openSync(options.outPath, 'w');
  try {
    let lines: string[] = [];
    const line = (file: string, owner: string, { hash: inputsHash, carried }: { hash: string; carried: string | undefined }): boolean => {
      lines.push(`${file}\t${inputsHash}\t${owner}\t${carried === undefined ? '1\t' : `0\t${carried}`}\n`);
      if (lines.length >= 1000) {
        writeSync(out, lines.join(''));
        lines = [];
      }
      return carried === undefined;
    };
    for (const row of mine) if (line(listingPageFile(row.slug), ownerKey(row.repo), row)) need[row.doc]! |= RENDER_LISTING;
    for (const [owner, list] of ownerRows) {
      if (!line(ownerPageFile(owner), owner, ownerPages.get(owner)!)) continue;
      renderOwners.set(owner, list);
      for (const row of list) need[row.doc]! |= LISTED;
    }
    if (lines.length > 0) writeSync(out, lines.join(''));
  } finally {
    closeSync(out);
  }
  return { need, renderOwners };
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
 * What a listing's page shows, hashed: its line of listings.jsonl (the listing, its ranks excepted: they are loaded
 * from SITE_PATHS.ranks), its stored files, its repository's and owner's listing counts and the listings of its copy
 * group (its origin's shown fields and, for a modified copy, files; its copies' shown fields). Whatever the page
 * template (site/pages/listings/[slug].astro) shows must be in here; the template itself is in the build's code
 * fingerprint, which a carried page must share (build/stages/site-stage.ts). `files`: the digests of the origins'
 * stored files read so far, by line.
 */
function listingPageHash(inputs: PlanInputs, row: RankRow, files: Map<number, string>): string {
  const filesOf = (doc: number, origin: boolean): string => {
    let digest = files.get(doc);
    if (digest === undefined) {
      const path = join(inputs.runtimeDir, runtimeFilesPath(doc));
      digest = existsSync(path) ? hash('sha256', readFileSync(path), 'base64url') : '';
      // An origin's are kept for its other modified copies; a listing's own are read once.
      if (origin) files.set(doc, digest);
    }
    return digest;
  };
  // One string hashed at once: a hash object per listing, fed piece by piece, cost as much again.
  let text = `${row.hash}\0${inputs.ownerListings.get(ownerKey(row.repo)) ?? 0}\0${inputs.repoCounters.get(row.repo.toLowerCase())?.count ?? 0}\0`;
  if (row.files) text += filesOf(row.doc, false);
  if (row.copy) {
    const self = inputs.byId.get(row.id);
    const origin = self?.copyOf ? inputs.byId.get(self.copyOf) : undefined;
    if (origin) {
      const { doc: _originDoc, ...originShown } = origin;
      text += `\0${JSON.stringify(originShown)}`;
      if (self!.copyKind === 'modified' && origin.files.length > 0) text += filesOf(origin.doc, true);
    }
    for (const { doc: _copyDoc, ...copy } of inputs.copiesOf.get(row.id) ?? []) text += `\0${JSON.stringify(copy)}`;
  }
  return hash('sha256', text, 'base64url');
}

let loaded: Promise<CatalogData> | undefined;

/** The catalog of the build being made; read on first use, then shared by every page of the build. */
export function loadCatalog(): Promise<CatalogData> {
  loaded ??= (async () => {
    // Started before the runtime was written (build/stages/site-stage.ts WarmRenderers): read it once the parent says go.
    if (process.env.CATALOG_RENDER_GATE === '1') {
      if (!process.send) throw new Error('CATALOG_RENDER_GATE is set but this process has no IPC channel to its parent');
      // The parent's one message to a gated renderer is its go, sent once this one says it is waiting.
      const go = once(process, 'message');
      process.send({ waiting: true });
      await go;
    }
    const { CATALOG_PAGE_INPUTS: out, CATALOG_PREVIOUS_PAGES: previousPath, CATALOG_PREVIOUS_SITE: previousSite } = process.env;
    return loadPageData(requiredEnv('CATALOG_RUNTIME_DIR'), requiredEnv('CATALOG_BASE_URL').replace(/\/+$/, ''), {
      out,
      previous: previousPath && previousSite ? { path: previousPath, site: previousSite } : undefined,
      onPageInputs: (pageInputs) => process.send?.({ pageInputs }),
    });
  })();
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
