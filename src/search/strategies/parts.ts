// What the search strategies share: the request and result types, the engine's parts they read (the store, the
// keyword searcher, the filters' bitsets, scratch keys), the cut of a page, and the walk-or-sort choice of a
// sorted page.
import type { CatalogStore } from '../../artifacts/runtime-store.ts';
import type { SortKey } from '../../domain/listing/ranking.ts';
import type { FilterBits, FilterRequest } from '../filter.ts';
import type { KeywordSearcher } from '../keyword-search.ts';
import { smallestK } from '../ranking/top-k.ts';

export interface SearchRequest extends FilterRequest {
  q?: string | undefined;
  sort?: SortKey | undefined;
  offset: number;
  limit: number;
  /**
   * 'all': every word must match (listing search; partial matches follow, flagged, when few listings match all);
   * 'any': any word may match, listings with every word first (natural language).
   */
  match?: 'all' | 'any';
}

export interface SearchResult {
  docs: number[];
  hasMore: boolean;
  /**
   * Listings the answer ranks, on every page: those matching the query words (for a partial answer, its full and
   * partial matches) within the filters, or every listing the filters admit when there is no query.
   */
  total: number;
  /** How the result was ordered. */
  order: SortKey | 'relevance';
  /**
   * True when, in mode 'all', fewer than PARTIAL_BELOW listings matched every word, so the results are those
   * listings followed by the best partial matches (the Search-Match: partial response header).
   */
  partial?: boolean;
  /**
   * The query searched instead of `q` when `q` had no exact hits and some of its words are in no listing: those
   * words replaced by the closest terms of the index (the Search-Corrected response header).
   */
  corrected?: string;
}

/**
 * The parts of one catalog's engine. Strategies are synchronous and reuse the scratch keys, so a request never
 * allocates per-listing objects; a search runs to its end before the next starts, so the scratch is never shared.
 */
export interface EngineParts {
  readonly store: CatalogStore;
  readonly searcher: KeywordSearcher;
  readonly filters: FilterBits;
  /** Scratch: one sort key per candidate. */
  readonly keys: Float64Array;
  /** Document by id rank: the document of a relevance key. */
  readonly byIdRank: Uint32Array;
}

/**
 * A query of one word, or of several common words, whose page ends within this many results ranks with the
 * searcher's block-skipping top-k (topOfWord); deeper pages rank every match, as a bounded heap that large no
 * longer skips much.
 */
export const TOP_OF_WORD_MAX = 1000;

/** Results up to the end of the page, and one more (whether there is a next page). */
export function wanted(request: SearchRequest): number {
  return request.offset + request.limit + 1;
}

/** The page of `docs` (which holds the page and at most one more), its total and order. */
export function page(docs: number[], request: SearchRequest, order: SortKey | 'relevance', total: number): SearchResult {
  const hasMore = docs.length > request.limit;
  if (hasMore) docs.length = request.limit;
  return { docs, hasMore, total, order };
}

/**
 * A page in a sort order, one of two ways (the caller knows which reads less): walking the order until the page
 * is full of admitted listings (`walk`: many candidates, so the page is near the top), or keying every candidate
 * with `keyCandidates` (which fills keys with each one's rank in the order and returns how many) and taking the
 * smallest keys.
 */
export function pageOfSort(
  parts: EngineParts,
  request: SearchRequest,
  sort: SortKey,
  walk: boolean,
  admits: (doc: number) => boolean,
  keyCandidates: (keys: Float64Array, rank: Uint32Array | undefined) => number,
): number[] {
  const { perm, rank } = parts.store.order(sort);
  const docs: number[] = [];
  if (walk) {
    const n = parts.store.count;
    for (let i = 0, seen = 0; i < n && docs.length <= request.limit; i++) {
      const doc = perm[i]!;
      if (admits(doc) && seen++ >= request.offset) docs.push(doc);
    }
    return docs;
  }
  const sorted = smallestK(parts.keys, keyCandidates(parts.keys, rank), wanted(request));
  for (let i = request.offset; i < sorted.length; i++) docs.push(perm[sorted[i]!]!);
  return docs;
}
