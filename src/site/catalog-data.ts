// What the prerendered pages read: the runtime artifacts of the build being made (the "index" stage's
// listings.jsonl, manifest.json and files/), named by CATALOG_RUNTIME_DIR, with the public origin in
// CATALOG_BASE_URL. Loaded once per build and shared by every page; the rankings are computed here in one pass
// with the ranking module, so the pages, the API and llms-full.txt put a listing in the same place.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../domain/listing-types.ts';
import type { StoredListing } from '../domain/listing-view.ts';
import { compareBy, type SortKey } from '../domain/ranking.ts';
import type { CatalogStats, Category, ListingFile } from '../domain/schemas.ts';
import { hasShortlist, SHORTLIST, shortlistSort } from '../domain/shortlists.ts';
import { SITE_PATHS } from '../domain/site-paths.ts';
import { ownerKey, ownerTable, type OwnerTable } from '../domain/owner-figures.ts';

/** A listing as the pages use it: the stored listing with its install history packed, its page URL and ranks. */
export type PageListing = Omit<StoredListing, 'installsHistory'> & {
  /** Line of listings.jsonl: the name of its stored files (files/<doc>.json). */
  doc: number;
  url: string;
  /** The daily cumulative installs (the install-history chart), packed: 100,000 listings hold 12 MB, not 30. */
  history: Uint32Array;
  /** Place among the listings of its type by installs and by stars (1 = most), of `of` (same order as the API's sorts). */
  rank: { installs: number; stars: number; of: number };
};

export interface CatalogCategory extends Category {
  /** The first listings of the category, ranked by the type's metric. */
  top: PageListing[];
  /** The comparison shortlist (src/domain/shortlists.ts), or undefined where there is none. */
  shortlist: PageListing[] | undefined;
}

export interface CatalogData {
  baseUrl: string;
  runtimeDir: string;
  count: number;
  lastUpdated: string;
  stats: CatalogStats;
  /** Every listing, in the default order (installs desc, id asc). */
  listings: PageListing[];
  /** The first listings of each type, ranked by the type's metric. */
  topByType: Record<ListingType, PageListing[]>;
  /** Categories of each type, in the manifest's order (by slug). */
  categoriesByType: Record<ListingType, CatalogCategory[]>;
  /** Per-owner figures, as GET /api/v1/owners/{owner}/stats gives them. */
  owners: OwnerTable;
  /** Lower-cased owner → its listings, each type's by its ranking metric. */
  listingsByOwner: Map<string, PageListing[]>;
}

/** How many listings a category page lists; the rest are one link away on /browse. */
export const CATEGORY_PAGE_SIZE = 100;
/** How many listings a type page (and the MCP hub) shows. */
export const TYPE_TOP_SIZE = 20;

interface RuntimeManifestView {
  count: number;
  lastUpdated: string;
  stats: CatalogStats;
  categories: Category[];
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the pages are built by the build's site stage (npm run build), which sets it`);
  return value;
}

export const categoryKey = (type: ListingType, category: string): string => `${type}/${category}`;

async function load(runtimeDir: string, baseUrl: string): Promise<CatalogData> {
  const manifest = JSON.parse(readFileSync(join(runtimeDir, 'manifest.json'), 'utf8')) as RuntimeManifestView;
  const listings: PageListing[] = [];
  const lines = createInterface({ input: createReadStream(join(runtimeDir, 'listings.jsonl')), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const { installsHistory, ...listing } = JSON.parse(line) as StoredListing;
    listings.push({ ...listing, doc: listings.length, url: baseUrl + SITE_PATHS.listing(listing.slug), history: Uint32Array.from(installsHistory), rank: { installs: 0, stars: 0, of: 0 } });
  }
  if (listings.length !== manifest.count) throw new Error(`listings.jsonl has ${listings.length} listings, the manifest says ${manifest.count}`);

  const members = new Map<string, PageListing[]>();
  const byType = Object.fromEntries(LISTING_TYPES.map((type) => [type, [] as PageListing[]])) as Record<ListingType, PageListing[]>;
  for (const listing of listings) {
    byType[listing.type].push(listing);
    for (const category of listing.categories) {
      const key = categoryKey(listing.type, category);
      const list = members.get(key);
      if (list) list.push(listing);
      else members.set(key, [listing]);
    }
  }
  for (const list of Object.values(byType)) {
    for (const sort of ['installs', 'stars'] as const) {
      [...list].sort(compareBy(sort)).forEach((listing, i) => {
        listing.rank[sort] = i + 1;
        listing.rank.of = list.length;
      });
    }
  }
  const ranked = (list: PageListing[], type: ListingType, size: number, sort: SortKey = RANKING_METRIC[type]) =>
    [...list].sort(compareBy(sort)).slice(0, size);

  const topByType = Object.fromEntries(LISTING_TYPES.map((type) => [type, ranked(byType[type], type, TYPE_TOP_SIZE)])) as Record<ListingType, PageListing[]>;
  const categoriesByType = Object.fromEntries(LISTING_TYPES.map((type) => [type, [] as CatalogCategory[]])) as Record<ListingType, CatalogCategory[]>;
  for (const category of manifest.categories) {
    const list = members.get(categoryKey(category.type, category.name)) ?? [];
    categoriesByType[category.type].push({
      ...category,
      top: ranked(list, category.type, CATEGORY_PAGE_SIZE),
      shortlist: hasShortlist(category) ? ranked(list, category.type, SHORTLIST.size, shortlistSort(category.type)) : undefined,
    });
  }
  const owners = ownerTable(listings);
  const listingsByOwner = new Map<string, PageListing[]>();
  for (const type of LISTING_TYPES) {
    for (const listing of [...byType[type]].sort(compareBy(RANKING_METRIC[type]))) {
      const key = ownerKey(listing.repo);
      const list = listingsByOwner.get(key);
      if (list) list.push(listing);
      else listingsByOwner.set(key, [listing]);
    }
  }
  return { baseUrl, runtimeDir, count: manifest.count, lastUpdated: manifest.lastUpdated, stats: manifest.stats, listings, topByType, categoriesByType, owners, listingsByOwner };
}

let loaded: Promise<CatalogData> | undefined;

/** The catalog of the build being made; read on first use, then shared by every page of the build. */
export function loadCatalog(): Promise<CatalogData> {
  loaded ??= load(requiredEnv('CATALOG_RUNTIME_DIR'), requiredEnv('CATALOG_BASE_URL').replace(/\/+$/, ''));
  return loaded;
}

/** Stored files of a listing, SKILL.md first; [] when none are stored. */
export function listingFiles(data: CatalogData, listing: PageListing): ListingFile[] {
  if (listing.files.length === 0) return [];
  const path = join(data.runtimeDir, 'files', `${listing.doc}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ListingFile[]) : [];
}

let rendered = 0;

/**
 * Counts a rendered listing page; every 1,000 pages the count goes to the build stage over IPC (when the build
 * runs in a child process with a channel), which drives its progress bar.
 */
export function countRenderedPage(): void {
  rendered++;
  if (rendered % 1000 === 0) process.send?.({ rendered });
}
