// The built catalog as the discovery files read it: the streaming catalog view (src/catalog-view/) over this
// build's runtime/, listings one at a time so memory stays flat at a million listings, and the top lists
// llms.txt, llms-full.txt and the feeds print, the same the site's pages show, collected in one bounded pass.
import { join } from 'node:path';
import type { ListingType } from '../../../src/domain/listing/listing-types.ts';
import type { StoredListing } from '../../../src/domain/listing/listing-view.ts';
import { readRuntimeListings, TopListsCollector } from '../../../src/catalog-view/catalog-view.ts';
import type { StageContext } from '../stage.ts';
import { requireRuntime } from './site-links.ts';

/** Listings in the runtime order; each line is parsed and dropped before the next is read. */
export function readListings(ctx: Pick<StageContext, 'buildDir'>): AsyncGenerator<StoredListing> {
  return readRuntimeListings(join(ctx.buildDir, 'runtime'));
}

/** What the discovery files print of a listing (no history, no file list). */
export type ListingSummary = Pick<
  StoredListing,
  | 'id'
  | 'slug'
  | 'type'
  | 'name'
  | 'description'
  | 'author'
  | 'repo'
  | 'repoUrl'
  | 'homepage'
  | 'category'
  | 'categories'
  | 'tags'
  | 'installs'
  | 'stars'
  | 'trending'
  | 'searchTrend'
  | 'updatedAt'
  | 'metrics'
  | 'metricsSource'
>;

function summarize(listing: StoredListing): ListingSummary {
  const {
    id,
    slug,
    type,
    name,
    description,
    author,
    repo,
    repoUrl,
    homepage,
    category,
    categories,
    tags,
    installs,
    stars,
    trending,
    searchTrend,
    updatedAt,
    metrics,
    metricsSource,
  } = listing;
  const summary: ListingSummary = {
    id,
    slug,
    type,
    name,
    description,
    author,
    repo,
    repoUrl,
    category,
    categories,
    tags,
    installs,
    stars,
    trending,
    searchTrend,
    updatedAt,
    metrics,
    metricsSource,
  };
  if (homepage) summary.homepage = homepage;
  return summary;
}

export interface Highlights {
  /** The first TOP_SIZES.overall listings in the default order. */
  overall: ListingSummary[];
  /** The first TOP_SIZES.perType listings of each type, by its metric. */
  byType: Record<ListingType, ListingSummary[]>;
  /** Comparison shortlists by categoryKey, for every category of ctx.runtime.categories that has one. */
  shortlists: Map<string, ListingSummary[]>;
}

const highlightsCollector = (ctx: Pick<StageContext, 'runtime'>) =>
  new TopListsCollector<StoredListing, ListingSummary>(requireRuntime(ctx).categories, { item: summarize });

function highlightsOf(collector: ReturnType<typeof highlightsCollector>): Highlights {
  const { overall, byType, shortlists } = collector.finish();
  return { overall, byType, shortlists };
}

/** One pass over the listings for every top list; never holds more than the lists themselves. */
export async function collectHighlights(ctx: Pick<StageContext, 'buildDir' | 'runtime'>): Promise<Highlights> {
  const collector = highlightsCollector(ctx);
  for await (const listing of readListings(ctx)) collector.offer(listing);
  return highlightsOf(collector);
}

const memo = new WeakMap<object, Promise<Highlights>>();

/**
 * readListings for a generator that reads every listing (the sitemap): the highlights are collected in the same pass,
 * so that catalogHighlights, asked once it is through, reads the listings no second time.
 */
export async function* listingsAndHighlights(ctx: Pick<StageContext, 'buildDir' | 'runtime'>): AsyncGenerator<StoredListing> {
  const collector = memo.has(ctx) ? undefined : highlightsCollector(ctx);
  for await (const listing of readListings(ctx)) {
    collector?.offer(listing);
    yield listing;
  }
  if (collector && !memo.has(ctx)) memo.set(ctx, Promise.resolve(highlightsOf(collector)));
}

/** The highlights of this build, computed once and shared by the generators that print them (llms files, feed). */
export function catalogHighlights(ctx: Pick<StageContext, 'buildDir' | 'runtime'>): Promise<Highlights> {
  let pending = memo.get(ctx);
  if (!pending) {
    pending = collectHighlights(ctx);
    memo.set(ctx, pending);
  }
  return pending;
}
