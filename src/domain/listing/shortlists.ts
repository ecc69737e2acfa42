// Comparison shortlists: the top listings of one (type, category), side by side. One rule for the compare pages,
// llms-full.txt and the sitemap, so a shortlist exists in all three or in none.
import { RANKING_METRIC, type ListingType } from './listing-types.ts';
import type { SortKey } from './ranking.ts';

export const SHORTLIST = {
  /** Listings a shortlist shows. */
  size: 5,
  /** A (type, category) with fewer listings has no comparison page: there is nothing to compare. */
  minListings: 3,
} as const;

export function hasShortlist(category: { count: number }): boolean {
  return category.count >= SHORTLIST.minListings;
}

/** A shortlist ranks by its type's metric: what `GET /api/v1/listings?type=&category=&sort=&limit=5` returns. */
export function shortlistSort(type: ListingType): SortKey {
  return RANKING_METRIC[type];
}
