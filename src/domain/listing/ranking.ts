// The one ranking module: the build precomputes orders and per-listing scores with it and the server ranks
// search results with it, so a listing sits in the same place on a static page and in an API answer.
import { RANKING_METRIC, type ListingType } from './listing-types.ts';

export const SORTS = ['installs', 'trending', 'stars', 'searchTrend'] as const;
export type SortKey = (typeof SORTS)[number];
export const DEFAULT_SORT: SortKey = 'installs';

/** Whether each figure of a listing is measured (CONTRACT.md, Sorting: a figure that is not real never decides a place). */
export interface FigureProvenance {
  readonly installs: 'real' | 'synthetic';
  readonly stars: 'real' | 'synthetic';
  readonly history: 'real' | 'interpolated' | 'synthetic';
}

export interface RankedFields {
  readonly id: string;
  readonly installs: number;
  readonly stars: number;
  readonly trending: number;
  readonly searchTrend: number;
  readonly metrics: FigureProvenance;
}

/** Ids (or their ranks in id order) ascending, by code unit: the tie-break of every ranked list. */
export function compareIds<K extends string | number>(a: K, b: K): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order of every ranked list: value descending, then id ascending (CONTRACT.md: ties break by id so pages
 * are stable). Owners by a type's metric, an export's lines by installs, and within one tier of placeOf.
 */
export function byValueThenId<T>(value: (item: T) => number, id: (item: T) => string | number): (a: T, b: T) => number {
  return (a, b) => value(b) - value(a) || compareIds(id(a), id(b));
}

/**
 * Where a sort puts a listing: first its tier (0 first), then its value descending within the tier, then its id.
 * Only a real figure gives a value (CONTRACT.md, Sorting): `installs` ranks real installs, then real stars, then the
 * rest by id; `stars` the other way round; `trending` ranks measured or interpolated histories, then the modelled
 * ones by id; `searchTrend` counts this service's own searches, which are all real.
 */
export interface Place {
  tier: number;
  value: number;
}

const REST: Place = { tier: 2, value: 0 };

export function placeOf(sort: SortKey, f: Omit<RankedFields, 'id'>): Place {
  switch (sort) {
    case 'installs':
      return f.metrics.installs === 'real' ? { tier: 0, value: f.installs } : f.metrics.stars === 'real' ? { tier: 1, value: f.stars } : REST;
    case 'stars':
      return f.metrics.stars === 'real' ? { tier: 0, value: f.stars } : f.metrics.installs === 'real' ? { tier: 1, value: f.installs } : REST;
    case 'trending':
      return f.metrics.history !== 'synthetic' ? { tier: 0, value: f.trending } : { tier: 1, value: 0 };
    case 'searchTrend':
      return { tier: 0, value: f.searchTrend };
  }
}

/** A place right below `place` (same tier, a value just under it): a moved listing's under its live successor. */
export function placeBelow(place: Place): Place {
  return { tier: place.tier, value: place.value - Math.max(1e-6, Math.abs(place.value) * 1e-9) };
}

/** Places in order: tier ascending, value descending, then id ascending. */
export function comparePlaces<K extends string | number>(a: Place, aId: K, b: Place, bId: K): number {
  return a.tier - b.tier || b.value - a.value || compareIds(aId, bId);
}

/** Listings by one of the SORTS, on real figures only (placeOf). */
export function compareBy(sort: SortKey): (a: RankedFields, b: RankedFields) => number {
  return (a, b) => comparePlaces(placeOf(sort, a), a.id, placeOf(sort, b), b.id);
}

/** The figure a listing's place under `sort` rests on, or undefined when no real figure places it (ordered by id). */
export function decidingFigure(sort: SortKey, f: Omit<RankedFields, 'id'>): 'installs' | 'stars' | 'trending' | 'searchTrend' | undefined {
  const place = placeOf(sort, f);
  if (sort === 'installs') return place.tier === 0 ? 'installs' : place.tier === 1 ? 'stars' : undefined;
  if (sort === 'stars') return place.tier === 0 ? 'stars' : place.tier === 1 ? 'installs' : undefined;
  if (sort === 'trending') return place.tier === 0 ? 'trending' : undefined;
  return 'searchTrend';
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

/**
 * The figure a listing without any real figure counts as in the popularity prior: a typical listing (the median real
 * figure of MCP servers and of skills is near it), neither pushed down to nothing for lacking a measure nor lifted by
 * its synthetic number.
 */
export const UNMEASURED_POPULARITY_FIGURE = 100;

/**
 * A listing's popularity in [0, 1): log-scaled real figure of its type's ranking metric (the other figure when only
 * that one is real; UNMEASURED_POPULARITY_FIGURE when neither is), so no synthetic figure lifts a listing in
 * relevance either. An archived or moved listing (src/domain/archived.ts) counts as unmeasured at most: its figures
 * are those of a repository nobody maintains it in any more, often one it left (a server that moved out of
 * modelcontextprotocol/servers kept its 16-way shared stars), and must not lift it above the live listing a
 * searcher is looking for.
 */
export function popularityPrior(
  type: ListingType,
  installs: number,
  stars: number,
  metrics: Pick<FigureProvenance, 'installs' | 'stars'>,
  archived = false,
): number {
  const byInstalls = RANKING_METRIC[type] === 'installs';
  const first = byInstalls ? (metrics.installs === 'real' ? installs : undefined) : metrics.stars === 'real' ? stars : undefined;
  const second = byInstalls ? (metrics.stars === 'real' ? stars : undefined) : metrics.installs === 'real' ? installs : undefined;
  const measured = first ?? second ?? UNMEASURED_POPULARITY_FIGURE;
  const value = archived ? Math.min(measured, UNMEASURED_POPULARITY_FIGURE) : measured;
  return Math.min(0.999, Math.log10(1 + value) / 8);
}

/**
 * Keyword relevance (BM25F). Each listing has four fields; a term's pseudo-frequency in a listing is
 *   tf~ = Σ_field FIELD_WEIGHTS[field] · tf_field / (1 − B[field] + B[field] · len_field / avgLen_field)
 * and its impact is
 *   impact = idf · tf~ · (K1 + 1) / (tf~ + K1),   idf = ln(1 + (N − df + 0.5) / (df + 0.5)).
 * The build computes every impact once (src/search/index-builder.ts); a query adds, per query word, the
 * impact of its term (PREFIX_FACTOR × the impact for a prefix match of the last word), then the bonuses and
 * the popularity prior below (relevanceScore).
 */
export const FIELD_WEIGHTS = { name: 3, ident: 2, tags: 1.5, description: 1 } as const;
export type SearchField = keyof typeof FIELD_WEIGHTS;
/** Field order of the index: bit i of a posting's field mask is SEARCH_FIELDS[i]. */
export const SEARCH_FIELDS: readonly SearchField[] = ['name', 'ident', 'tags', 'description'];
export const BM25_K1 = 1.2;
export const BM25_B: Record<SearchField, number> = { name: 0.5, ident: 0.3, tags: 0.3, description: 0.75 };
/** A prefix match of the last query word (the user still typing) counts for this share of a whole word. */
export const PREFIX_FACTOR = 0.5;
/** Bonus when the query is the listing's whole name (separators and case aside: "find skills" = "find-skills"). */
export const EXACT_NAME_BONUS = 1;
/**
 * Bonus per pair of neighbouring query words that the name holds joined ("google drive" in "Google Drive MCP") or
 * the description writes side by side ("code review" in "Automated code review for pull requests"). Counting the
 * description too, with its word pairs indexed (index-builder.ts, addName), on the judged sets (npm run eval, `q`,
 * dev filtered / test/eval/own.jsonl nDCG@10): 0.651 / 0.671 → 0.664 / 0.674, the other kinds equal. Half the bonus
 * for a description: 0.655 / 0.671; repository and tags counted too: 0.655 / 0.674; the description counted without
 * its word pairs (only the compounds it writes, "speech-to-text"): 0.652 / 0.669.
 */
export const PHRASE_BONUS = 1.5;
/** The fields whose joined pairs earn PHRASE_BONUS, as a mask of SEARCH_FIELDS bits (name and description). */
export const PHRASE_FIELDS = (1 << SEARCH_FIELDS.indexOf('name')) | (1 << SEARCH_FIELDS.indexOf('description'));
/** Weight of the popularity prior (in [0, 1)) in the relevance score. */
export const POPULARITY_WEIGHT = 8;

export function idf(count: number, df: number): number {
  return Math.log(1 + (count - df + 0.5) / (df + 0.5));
}

/** Impact of one term in one listing from its per-field frequencies and length ratios (len / avgLen). */
export function termImpact(termIdf: number, tf: readonly number[], lengthRatio: readonly number[]): number {
  let pseudo = 0;
  for (let f = 0; f < SEARCH_FIELDS.length; f++) {
    const field = SEARCH_FIELDS[f]!;
    if (tf[f]! > 0) pseudo += (FIELD_WEIGHTS[field] * tf[f]!) / (1 - BM25_B[field] + BM25_B[field] * lengthRatio[f]!);
  }
  return (termIdf * pseudo * (BM25_K1 + 1)) / (pseudo + BM25_K1);
}

/** Relevance of a listing to a keyword query: summed term impacts, exact-name and phrase bonuses, popularity. */
export function relevanceScore(termImpacts: number, exactName: boolean, phrasePairs: number, popularity: number): number {
  return termImpacts + (exactName ? EXACT_NAME_BONUS : 0) + phrasePairs * PHRASE_BONUS + POPULARITY_WEIGHT * popularity;
}

/** Weight of each matched word when only some words match (natural-language queries, best partial matches). */
/** Listings matching every word come before any partial match. */
export const FULL_MATCH_BONUS = 1000;
export const PARTIAL_MATCH_WEIGHT = 3;

/** Relevance of a listing matching `matched` of the query's `words` words, when not all need to match. */
export function partialMatchScore(relevance: number, matched: number, words: number): number {
  return relevance + PARTIAL_MATCH_WEIGHT * (matched / words) + (matched === words ? FULL_MATCH_BONUS : 0);
}
