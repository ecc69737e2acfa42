// A one-word query (the commonest kind, and the costliest when the word is common): its matches are counted with
// one bit each, and only the page is ranked: by relevance with the searcher's block-skipping top-k, by a sort
// either walking the sort order until the page is full or keying every match, whichever reads less. Equal, page
// for page, to ranking every match (test/search/one-word-search.test.ts).
import { isUnfiltered, type Filter } from '../filter.ts';
import type { QueryWord } from '../keyword-search.ts';
import { OneWordRanking } from '../ranking/relevance-key.ts';
import { page, pageOfSort, wanted, type EngineParts, type SearchRequest, type SearchResult } from './parts.ts';

export function oneWord(
  parts: EngineParts,
  request: SearchRequest,
  filter: Filter,
  word: QueryWord,
  nameKey: number,
  test: (doc: number) => boolean,
): SearchResult {
  const { searcher, filters, store } = parts;
  const want = wanted(request);
  if (!request.sort) {
    const { offsets } = searcher.index;
    const term = word.terms[0];
    // One term and no filter: the list's length is the count, with no pass over it.
    const total =
      word.terms.length === 0
        ? 0
        : isUnfiltered(filter) && word.terms.length === 1
          ? offsets[term! + 1]! - offsets[term!]!
          : searcher.countWord(word, test, () => filters.admittedBits(filter));
    const { popularity, idRank } = store.columns;
    const ranking = new OneWordRanking(popularity, idRank, searcher.index.nameKeys, nameKey, request.match === 'any');
    const docs = total === 0 ? [] : searcher.topOfWord(word, nameKey, test, want, ranking).slice(request.offset);
    return page(docs, request, 'relevance', total);
  }
  const total = searcher.countWord(word, test, () => filters.admittedBits(filter));
  // A common word's page is near the top of the sort order.
  const walk = total > 0 && (want * store.count) / total < word.cost;
  const docs = pageOfSort(
    parts,
    request,
    request.sort,
    walk,
    (doc) => searcher.isMarked(doc) && test(doc),
    (keys, rank) => {
      let m = 0;
      searcher.eachMarked(word, test, (doc) => (keys[m++] = rank ? rank[doc]! : doc));
      return m;
    },
  );
  return page(docs, request, request.sort, total);
}
