// The general keyword path: every match of the query (all its words, or any in mode 'any', with partial matches
// when few listings hold them all) is keyed, by relevance or by its rank in the sort, and the page is the
// smallest keys. The one-word and all-common-words strategies answer the costliest kinds faster, equal page for page.
import { partialMatchScore, relevanceScore } from '../../domain/listing/ranking.ts';
import type { ResolvedQuery } from '../keyword-search.ts';
import { ID_SPAN, relevanceKey } from '../ranking/relevance-key.ts';
import { smallestK } from '../ranking/top-k.ts';
import { page, wanted, type EngineParts, type SearchRequest, type SearchResult } from './parts.ts';

export function general(parts: EngineParts, request: SearchRequest, query: ResolvedQuery, test: (doc: number) => boolean): SearchResult {
  const { store, searcher, keys } = parts;
  const found = searcher.match(query, test, request.match ?? 'all');
  const { score, hits, phrases, index } = searcher;
  const { popularity, idRank } = store.columns;
  const words = query.words.length;
  const rank = request.sort ? store.order(request.sort).rank : undefined;
  const ranked = request.match === 'any' || found.partial;
  for (let i = 0; i < found.count; i++) {
    const doc = found.docs[i]!;
    if (request.sort) {
      keys[i] = rank ? rank[doc]! : doc;
      continue;
    }
    let relevance = relevanceScore(score[doc]!, index.nameKeys[doc] === query.nameKey, phrases[doc]!, popularity[doc]!);
    if (ranked) relevance = partialMatchScore(relevance, hits[doc]!, words);
    keys[i] = relevanceKey(relevance, idRank[doc]!);
  }
  const sorted = smallestK(keys, found.count, wanted(request));
  const docs: number[] = [];
  if (request.sort) {
    const { perm } = store.order(request.sort);
    for (let i = request.offset; i < sorted.length; i++) docs.push(perm[sorted[i]!]!);
  } else {
    for (let i = request.offset; i < sorted.length; i++) docs.push(parts.byIdRank[sorted[i]! % ID_SPAN]!);
  }
  const result = page(docs, request, request.sort ?? 'relevance', found.count);
  if (found.partial) result.partial = true;
  return result;
}
