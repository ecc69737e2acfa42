// One streaming view of a build's catalog: the listings of runtime/listings.jsonl read one at a time (in the
// default order: installs desc, id asc), and the top lists every surface prints, collected in the same pass in
// bounded memory. The site's pages (src/page-model/page-data.ts) and the discovery files (llms.txt, llms-full.txt,
// the feeds: build/stages/discovery/discovery-data.ts) both take them from here, so a listing holds the same place in a
// top list or a comparison shortlist wherever it is printed.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RUNTIME_LISTINGS_FILE } from '../artifacts/runtime-manifest.ts';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../domain/listing/listing-types.ts';
import type { StoredListing } from '../domain/listing/listing-view.ts';
import { compareBy, type RankedFields } from '../domain/listing/ranking.ts';
import type { Category } from '../domain/schemas.ts';
import { hasShortlist, SHORTLIST, shortlistSort } from '../domain/listing/shortlists.ts';

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

/**
 * A TopList that keeps at most `perRepo` items of one repository: the best `size` items among each repository's best
 * `perRepo`. Exact in one pass: an item dropped for the size never returns (only better items enter after it), and
 * one dropped for its repository is worse than the repository's items kept.
 */
export class RepoCappedTopList<T extends B, B extends { readonly repo: string } = T> extends TopList<T, B> {
  readonly perRepo: number;
  private readonly kept = new Map<string, number>();
  private readonly order: (a: B, b: B) => number;

  constructor(size: number, perRepo: number, compare: (a: B, b: B) => number) {
    super(size, compare);
    this.perRepo = perRepo;
    this.order = compare;
  }

  /** Where the repository's worst kept item is when the repository is at its cap, else -1. */
  private cappedAt(repo: string): number {
    if ((this.kept.get(repo) ?? 0) < this.perRepo) return -1;
    for (let i = this.items.length - 1; i >= 0; i--) if (this.items[i]!.repo.toLowerCase() === repo) return i;
    return -1;
  }

  override accepts(item: B): boolean {
    if (!super.accepts(item)) return false;
    const worst = this.cappedAt(item.repo.toLowerCase());
    // At its cap, a repository's worst kept item gives way only to a better one of the same repository.
    return worst < 0 || this.order(item, this.items[worst]!) < 0;
  }

  override offer(item: T): void {
    if (!this.accepts(item)) return;
    const repo = item.repo.toLowerCase();
    const worst = this.cappedAt(repo);
    if (worst >= 0) {
      this.items.splice(worst, 1);
      this.kept.set(repo, this.kept.get(repo)! - 1);
    }
    const dropped = this.items.length === this.size ? this.items[this.items.length - 1]!.repo.toLowerCase() : undefined;
    super.offer(item);
    this.kept.set(repo, (this.kept.get(repo) ?? 0) + 1);
    if (dropped !== undefined) this.kept.set(dropped, this.kept.get(dropped)! - 1);
  }
}

/** Listings of one repository a site top list or comparison shows at most (the rest are one link away). */
export const PER_REPO_IN_TOP_LISTS = 2;

/** The key of a (type, category) in TopLists' maps. */
export const categoryKey = (type: ListingType, category: string): string => `${type}/${category}`;

export interface TopLists<T> {
  /** The first TOP_SIZES.overall listings in the default order. */
  overall: T[];
  /** The first TOP_SIZES.perType listings of each type, by the type's metric, at most PER_REPO_IN_TOP_LISTS per repository, none archived. */
  byType: Record<ListingType, T[]>;
  /** By categoryKey: the first TOP_SIZES.category listings of each category, by its type's metric (when asked for). */
  categoryTop: Map<string, T[]>;
  /** By categoryKey: the comparison shortlist of every category that has one (src/domain/listing/shortlists.ts), at most PER_REPO_IN_TOP_LISTS per repository. */
  shortlists: Map<string, T[]>;
}

/** What a capped list reads of a listing: its figures and its repository. */
export type RepoRanked = RankedFields & { readonly repo: string };

/** What the top lists read of a listing. */
export type ViewListing = RankedFields & {
  readonly type: ListingType;
  readonly categories: readonly string[];
  readonly repo: string;
  readonly archived?: string | undefined;
};

/**
 * Collects every top list in one pass over the listings, offered in the default order. `item` makes what a list
 * keeps from a listing, once per listing and only when some list keeps it; `categoryTop` adds the category lists.
 */
export class TopListsCollector<L extends ViewListing, T extends RepoRanked = L> {
  private readonly item: (listing: L) => T;
  private readonly overall: T[] = [];
  private readonly byType: Record<ListingType, TopList<T, RepoRanked>>;
  private readonly categoryTop = new Map<string, TopList<T, RepoRanked>>();
  private readonly shortlists = new Map<string, TopList<T, RepoRanked>>();

  constructor(categories: ReadonlyArray<Pick<Category, 'type' | 'name' | 'count'>>, options: { item: (listing: L) => T; categoryTop?: boolean }) {
    this.item = options.item;
    // A type's top list and a comparison show at most PER_REPO_IN_TOP_LISTS listings of one repository: one
    // repository's stars copied onto each of its listings would otherwise fill them.
    this.byType = Object.fromEntries(
      LISTING_TYPES.map((type): [ListingType, TopList<T, RepoRanked>] => [
        type,
        new RepoCappedTopList<T, RepoRanked>(TOP_SIZES.perType, PER_REPO_IN_TOP_LISTS, compareBy(RANKING_METRIC[type])),
      ]),
    ) as Record<ListingType, TopList<T, RepoRanked>>;
    for (const category of categories) {
      const key = categoryKey(category.type, category.name);
      if (options.categoryTop) this.categoryTop.set(key, new TopList<T, RepoRanked>(TOP_SIZES.category, compareBy(RANKING_METRIC[category.type])));
      if (hasShortlist(category))
        this.shortlists.set(key, new RepoCappedTopList<T, RepoRanked>(SHORTLIST.size, PER_REPO_IN_TOP_LISTS, compareBy(shortlistSort(category.type))));
    }
  }

  offer(listing: L): void {
    let item: T | undefined;
    const keep = (list: TopList<T, RepoRanked> | undefined) => {
      if (list?.accepts(listing)) list.offer((item ??= this.item(listing)));
    };
    // Listings come in the default order, so the overall list is simply their head.
    if (this.overall.length < TOP_SIZES.overall) this.overall.push((item ??= this.item(listing)));
    // An archived or moved listing is marked wherever it is listed, but leads no top list or comparison.
    if (!listing.archived) keep(this.byType[listing.type]);
    for (const category of listing.categories) {
      const key = categoryKey(listing.type, category);
      keep(this.categoryTop.get(key));
      if (!listing.archived) keep(this.shortlists.get(key));
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
