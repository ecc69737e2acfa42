// The built catalog as the discovery files read it: listings streamed from the runtime's listings.jsonl (the
// shim's own data, in the default order: installs desc, id asc), one at a time, so memory stays flat at a million
// listings; and the few top lists llms.txt, llms-full.txt and the feed print, collected in one bounded pass.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { LISTING_TYPES, RANKING_METRIC, type ListingType } from '../../src/domain/listing-types.ts';
import { compareBy } from '../../src/domain/ranking.ts';
import { hasShortlist, SHORTLIST, shortlistSort } from '../../src/domain/shortlists.ts';
import type { StoredListing } from '../../src/domain/listing-view.ts';
import type { StageContext } from '../stage.ts';
import { requireRuntime } from './site-links.ts';

/** Listings in the runtime order; each line is parsed and dropped before the next is read. */
export async function* readListings(ctx: Pick<StageContext, 'buildDir'>): AsyncGenerator<StoredListing> {
  const lines = createInterface({ input: createReadStream(join(ctx.buildDir, 'runtime', 'listings.jsonl')), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line) as StoredListing;
}

/** What the discovery files print of a listing (no history, no file list). */
export type ListingSummary = Pick<
  StoredListing,
  'id' | 'slug' | 'type' | 'name' | 'description' | 'author' | 'repo' | 'repoUrl' | 'homepage' | 'category' | 'categories' | 'tags' | 'installs' | 'stars' | 'trending' | 'searchTrend' | 'updatedAt' | 'metrics' | 'metricsSource'
>;

function summarize(listing: StoredListing): ListingSummary {
  const { id, slug, type, name, description, author, repo, repoUrl, homepage, category, categories, tags, installs, stars, trending, searchTrend, updatedAt, metrics, metricsSource } = listing;
  const summary: ListingSummary = { id, slug, type, name, description, author, repo, repoUrl, category, categories, tags, installs, stars, trending, searchTrend, updatedAt, metrics, metricsSource };
  if (homepage) summary.homepage = homepage;
  return summary;
}

/** The best `size` items offered so far, best first; O(size) memory whatever the number offered. */
export class TopList<T> {
  readonly size: number;
  readonly items: T[] = [];
  private readonly compare: (a: T, b: T) => number;

  constructor(size: number, compare: (a: T, b: T) => number) {
    this.size = size;
    this.compare = compare;
  }

  /** Whether `item` would be kept; lets callers skip building the item for the common case of a miss. */
  accepts(item: T): boolean {
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

export const HIGHLIGHT_SIZES = {
  /** The feed's overall list: the first listings in the default order. */
  overall: 100,
  /** Per type, ranked by the type's metric: the feed takes 20, llms.txt the first 10. */
  perType: 20,
} as const;

export interface Highlights {
  overall: ListingSummary[];
  byType: Record<ListingType, ListingSummary[]>;
  /** Comparison shortlists by `${type}/${category}`, for every category of ctx.runtime.categories that has one. */
  shortlists: Map<string, ListingSummary[]>;
}

export const shortlistKey = (type: ListingType, category: string) => `${type}/${category}`;

/** One pass over the listings for every top list; never holds more than the lists themselves. */
export async function collectHighlights(ctx: Pick<StageContext, 'buildDir' | 'runtime'>): Promise<Highlights> {
  const runtime = requireRuntime(ctx);
  const overall: ListingSummary[] = [];
  const byType = Object.fromEntries(LISTING_TYPES.map((type) => [type, new TopList<ListingSummary>(HIGHLIGHT_SIZES.perType, compareBy(RANKING_METRIC[type]))])) as Record<
    ListingType,
    TopList<ListingSummary>
  >;
  const shortlists = new Map<string, TopList<ListingSummary>>();
  for (const category of runtime.categories) {
    if (hasShortlist(category)) shortlists.set(shortlistKey(category.type, category.name), new TopList<ListingSummary>(SHORTLIST.size, compareBy(shortlistSort(category.type))));
  }
  for await (const listing of readListings(ctx)) {
    let summary: ListingSummary | undefined;
    const keep = (list: TopList<ListingSummary>) => {
      if (list.accepts(listing)) list.offer((summary ??= summarize(listing)));
    };
    // listings.jsonl is in the default order, so the overall top list is simply its head.
    if (overall.length < HIGHLIGHT_SIZES.overall) overall.push((summary ??= summarize(listing)));
    keep(byType[listing.type]);
    for (const category of listing.categories) {
      const list = shortlists.get(shortlistKey(listing.type, category));
      if (list) keep(list);
    }
  }
  return {
    overall,
    byType: Object.fromEntries(LISTING_TYPES.map((type) => [type, byType[type].items])) as Record<ListingType, ListingSummary[]>,
    shortlists: new Map([...shortlists].map(([key, list]) => [key, list.items])),
  };
}

const memo = new WeakMap<object, Promise<Highlights>>();

/** The highlights of this build, computed once and shared by the generators that print them (llms files, feed). */
export function catalogHighlights(ctx: Pick<StageContext, 'buildDir' | 'runtime'>): Promise<Highlights> {
  let pending = memo.get(ctx);
  if (!pending) {
    pending = collectHighlights(ctx);
    memo.set(ctx, pending);
  }
  return pending;
}
