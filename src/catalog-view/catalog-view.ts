// One streaming view of a build's catalog: the listings of runtime/listings.jsonl read one at a time (in the
// default order: installs desc, id asc), and the top lists every surface prints, collected in the same pass in
// bounded memory. The site's pages (src/site/page-data.ts) and the discovery files (llms.txt, llms-full.txt,
// the feeds: build/discovery/discovery-data.ts) both take them from here, so a listing holds the same place in a
// top list or a comparison shortlist wherever it is printed.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RUNTIME_LISTINGS_FILE } from '../artifacts/runtime-manifest.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../domain/listing-types.ts';
import type { StoredListing } from '../domain/listing-view.ts';
import { compareBy, type RankedFields } from '../domain/ranking.ts';
import type { Category } from '../domain/schemas.ts';
import { hasShortlist, SHORTLIST, shortlistSort } from '../domain/shortlists.ts';

export const TOP_SIZES = {
  /** The feed's overall list: the first listings in the default order. */
  overall: 100,
  /** Per type, by the type's metric: a type page, the MCP hub and the feed show 20, llms.txt 10, the home page 5. */
  perType: 20,
  /** A category page lists this many, by its type's metric; the rest are one link away on /browse. */
  category: 100,
} as const;

/** Listings of a build's runtime/ in the default order; each line is parsed and handed on before the next is read. */
export async function* readRuntimeListings(runtimeDir: string): AsyncGenerator<StoredListing> {
  const lines = createInterface({ input: createReadStream(join(runtimeDir, RUNTIME_LISTINGS_FILE)), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line) as StoredListing;
}

/**
 * The best `size` items offered so far, best first; O(size) memory whatever the number offered. `B` is what the
 * order reads, so a candidate can be tested (accepts) before the item kept for it is made.
 */
export class TopList<T extends B, B = T> {
  readonly size: number;
  readonly items: T[] = [];
  private readonly compare: (a: B, b: B) => number;

  constructor(size: number, compare: (a: B, b: B) => number) {
    this.size = size;
    this.compare = compare;
  }

  /** Whether `item` would be kept; lets callers skip building the item for the common case of a miss. */
  accepts(item: B): boolean {
    return this.items.length < this.size || this.compare(item, this.items[this.items.length - 1]!) < 0;
  }

  offer(item: T): void {
    if (!this.accepts(item)) return;
    let at = this.items.length;
    while (at > 0 && this.compare(item, this.items[at - 1]!) < 0) at--;
    this.items.splice(at, 0, item);
    if (this.items.length > this.size) this.items.pop();
  }
}

/** The key of a (type, category) in TopLists' maps. */
export const categoryKey = (type: ListingType, category: string): string => `${type}/${category}`;

export interface TopLists<T> {
  /** The first TOP_SIZES.overall listings in the default order. */
  overall: T[];
  /** The first TOP_SIZES.perType listings of each type, by the type's metric. */
  byType: Record<ListingType, T[]>;
  /** By categoryKey: the first TOP_SIZES.category listings of each category, by its type's metric (when asked for). */
  categoryTop: Map<string, T[]>;
  /** By categoryKey: the comparison shortlist of every category that has one (src/domain/shortlists.ts). */
  shortlists: Map<string, T[]>;
}

/** What the top lists read of a listing. */
export type ViewListing = RankedFields & { readonly type: ListingType; readonly categories: readonly string[] };

/**
 * Collects every top list in one pass over the listings, offered in the default order. `item` makes what a list
 * keeps from a listing, once per listing and only when some list keeps it; `categoryTop` adds the category lists.
 */
export class TopListsCollector<L extends ViewListing, T extends RankedFields = L> {
  private readonly item: (listing: L) => T;
  private readonly overall: T[] = [];
  private readonly byType: Record<ListingType, TopList<T, RankedFields>>;
  private readonly categoryTop = new Map<string, TopList<T, RankedFields>>();
  private readonly shortlists = new Map<string, TopList<T, RankedFields>>();

  constructor(categories: ReadonlyArray<Pick<Category, 'type' | 'name' | 'count'>>, options: { item: (listing: L) => T; categoryTop?: boolean }) {
    this.item = options.item;
    this.byType = Object.fromEntries(LISTING_TYPES.map((type) => [type, new TopList<T, RankedFields>(TOP_SIZES.perType, compareBy(RANKING_METRIC[type]))])) as Record<
      ListingType,
      TopList<T, RankedFields>
    >;
    for (const category of categories) {
      const key = categoryKey(category.type, category.name);
      if (options.categoryTop) this.categoryTop.set(key, new TopList<T, RankedFields>(TOP_SIZES.category, compareBy(RANKING_METRIC[category.type])));
      if (hasShortlist(category)) this.shortlists.set(key, new TopList<T, RankedFields>(SHORTLIST.size, compareBy(shortlistSort(category.type))));
    }
  }

  offer(listing: L): void {
    let item: T | undefined;
    const keep = (list: TopList<T, RankedFields> | undefined) => {
      if (list?.accepts(listing)) list.offer((item ??= this.item(listing)));
    };
    // Listings come in the default order, so the overall list is simply their head.
    if (this.overall.length < TOP_SIZES.overall) this.overall.push((item ??= this.item(listing)));
    keep(this.byType[listing.type]);
    for (const category of listing.categories) {
      const key = categoryKey(listing.type, category);
      keep(this.categoryTop.get(key));
      keep(this.shortlists.get(key));
    }
  }

  finish(): TopLists<T> {
    return {
      overall: this.overall,
      byType: Object.fromEntries(LISTING_TYPES.map((type) => [type, this.byType[type].items])) as Record<ListingType, T[]>,
      categoryTop: new Map([...this.categoryTop].map(([key, list]) => [key, list.items])),
      shortlists: new Map([...this.shortlists].map(([key, list]) => [key, list.items])),
    };
  }
}
