// The one ranking module: the build precomputes orders and per-listing scores with it and the server ranks
// search results with it, so a listing sits in the same place on a static page and in an API answer.
import { RANKING_METRIC, type ListingType } from './listing-types.ts';

export const SORTS = ['installs', 'trending', 'stars', 'searchTrend'] as const;
export type SortKey = (typeof SORTS)[number];
export const DEFAULT_SORT: SortKey = 'installs';

export interface RankedFields {
  readonly id: string;
  readonly installs: number;
  readonly stars: number;
  readonly trending: number;
  readonly searchTrend: number;
}

/** Value descending, then id ascending (CONTRACT.md: ties break by id so pages are stable). */
export function compareBy(sort: SortKey): (a: RankedFields, b: RankedFields) => number {
  return (a, b) => b[sort] - a[sort] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Days in the recent window of the trending score. */
export const TRENDING_WINDOW_DAYS = 7;
/** Pseudo-count that damps the score of listings with tiny install counts. */
export const TRENDING_DAMPING = 10;

/**
 * trending = (recent - expected) / sqrt(expected + DAMPING), where `recent` is the installs gained in the last
 * 7 days of the cumulative daily history and `expected` is the 7-day gain at the pace of the days before them.
 * It reads as a z-score of excess growth under Poisson-like noise: large when a listing grows much faster than
 * its own baseline, near 0 when it grows as usual, and small for tiny counts however fast they double.
 */
export function trendingScore(history: readonly number[]): number {
  const n = history.length;
  if (n < TRENDING_WINDOW_DAYS + 2) return 0;
  const last = history[n - 1]!;
  const windowStart = history[n - 1 - TRENDING_WINDOW_DAYS]!;
  const first = history[0]!;
  const recent = last - windowStart;
  const baselineDays = n - 1 - TRENDING_WINDOW_DAYS;
  const expected = ((windowStart - first) / baselineDays) * TRENDING_WINDOW_DAYS;
  const score = (recent - expected) / Math.sqrt(expected + TRENDING_DAMPING);
  return Math.round(score * 1000) / 1000;
}

/** searchTrend: recent searches and opens, weighted so a click-through counts more than an appearance. */
export const SEARCH_TREND_WEIGHTS = { appeared: 1, opened: 5 } as const;
export function searchTrendScore(counts: { appeared: number; opened: number }): number {
  const raw = counts.appeared * SEARCH_TREND_WEIGHTS.appeared + counts.opened * SEARCH_TREND_WEIGHTS.opened;
  return Math.round(Math.log1p(raw) * 1000) / 1000;
}

/** A listing's popularity in [0, 1): log-scaled figure of its type's ranking metric. */
export function popularityPrior(type: ListingType, installs: number, stars: number): number {
  const value = RANKING_METRIC[type] === 'installs' ? installs : stars;
  return Math.min(0.999, Math.log10(1 + value) / 8);
}

/** Weight of one query term by the best field it matched in. */
export const FIELD_WEIGHTS = { name: 3, ident: 2, description: 1 } as const;
export type SearchField = keyof typeof FIELD_WEIGHTS;
/** Bonus when the query is the listing's whole name. */
export const EXACT_NAME_BONUS = 2;

/**
 * Relevance of a listing to a keyword query: the sum of per-term field weights, an exact-name bonus and the
 * popularity prior, which is < 1 so it only orders listings that match equally well.
 */
export function relevanceScore(termWeightSum: number, exactName: boolean, popularity: number): number {
  return termWeightSum + (exactName ? EXACT_NAME_BONUS : 0) + popularity;
}
