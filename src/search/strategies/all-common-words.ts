// A query of several words that are all common (each in 1/ALL_WORDS_SHARE of the catalog or more, the costliest
// kind to intersect): its full matches are the intersection of the words' kept bits, and only the page is ranked,
// through the blocks of the cheapest word as for one word.
import { forEachBit, hasBit } from '../bitset.ts';
import type { Filter } from '../filter.ts';
import { PARTIAL_BELOW, type ResolvedQuery } from '../keyword-search.ts';
import { AllWordsRanking } from '../ranking/relevance-key.ts';
import { page, pageOfSort, wanted, type EngineParts, type SearchRequest, type SearchResult } from './parts.ts';

/** Undefined when the query needs the general path: a date filter, or fewer than PARTIAL_BELOW full matches (the partial answer). */
export function allCommonWords(parts: EngineParts, request: SearchRequest, filter: Filter, query: ResolvedQuery): SearchResult | undefined {
  const { searcher, store } = parts;
  const admitted = parts.filters.admittedBits(filter);
  if (admitted === undefined) return undefined;
  const { bits, count } = searcher.matchedAll(query, admitted);
  if (count < PARTIAL_BELOW) return undefined;
  const matched = (doc: number) => hasBit(bits, doc);
  if (request.sort) {
    // Many matches: the page is near the top of the sort order.
    const walk = (wanted(request) * store.count) / count < bits.length + count;
    const docs = pageOfSort(parts, request, request.sort, walk, matched, (keys, rank) => {
      let m = 0;
      forEachBit(bits, (doc) => (keys[m++] = rank ? rank[doc]! : doc));
      return m;
    });
    return page(docs, request, request.sort, count);
  }
  const { popularity, idRank } = store.columns;
  const ranking = new AllWordsRanking(searcher, query, popularity, idRank);
  const docs = searcher.topOfWord(ranking.driver, query.nameKey, matched, wanted(request), ranking).slice(request.offset);
  return page(docs, request, 'relevance', count);
}
