// Results folded by copy group: one listing per group (its best-ranked member among the matches), so a search for
// "pdf" does not show anthropics/skills' pdf and four re-hosts of it on one page. The folded list is the ranked list
// with every later member of an already-shown group left out; a page is a slice of it, so offsets, cursors and
// pages stay consistent, and `total` counts the groups among the matches. /browse, the agent surfaces (MCP, A2A,
// /ask) always fold; the JSON API folds with distinct=true (SERVICE.md's answer stays the default).
import type { ListingQuery } from '../../src/domain/contract/listing-query.ts';
import type { SearchResult } from '../../src/search/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import type { ListingAnswer, ListingSearch } from './listing-search.ts';

/**
 * Up to this many matches the folded total is exact (every match is ranked once and folded). Beyond it the total is
 * the matches less the copies seen in the ranked window, an upper bound. The composition root remembers the folded
 * page, not this deep list: kept per query, lists of tens of thousands of documents would fill the search memory.
 */
export const FOLD_EXACT_MAX = 50_000;
/** The first window is this many times the page's depth: copies are a fifth of the skills, seldom more of a page. */
const WINDOW_FACTOR = 3;
const WINDOW_MIN = 60;

/** Documents with every later member of a group already present removed, in order. */
export function foldDocs(docs: readonly number[], group: Uint32Array): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const doc of docs) {
    const key = group[doc] ?? doc;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(doc);
  }
  return out;
}

/**
 * One page of the folded results of a query. `exactTotal`: rank every match (up to FOLD_EXACT_MAX) for an exact
 * total; the agent surfaces, which show no total, rank only as deep as the page needs.
 */
export async function foldedPage(search: ListingSearch, snapshot: Snapshot, query: ListingQuery, exactTotal: boolean): Promise<ListingAnswer> {
  const group = snapshot.store.columns.copyGroup;
  const want = query.offset + query.limit + 1;
  let window = Math.max(WINDOW_MIN, want * WINDOW_FACTOR);
  for (;;) {
    const answer = await search(snapshot, { ...query, distinct: false, offset: 0, limit: window });
    const { result } = answer;
    const folded = foldDocs(result.docs, group);
    const complete = !result.hasMore;
    if (!complete && exactTotal && result.total <= FOLD_EXACT_MAX && window < result.total) {
      window = result.total;
      continue;
    }
    if (!complete && folded.length < want && window < result.total) {
      window = Math.min(window * 4, Math.max(result.total, window + 1));
      continue;
    }
    const total = complete ? folded.length : result.total - (result.docs.length - folded.length);
    const docs = folded.slice(query.offset, query.offset + query.limit);
    const page: SearchResult = { ...result, docs, hasMore: folded.length > query.offset + query.limit || (!complete && folded.length >= want), total };
    return { result: page, headers: answer.headers };
  }
}

/** The listing search with `distinct` honoured: folded when a query asks for it, as it was otherwise. */
export function distinctSearch(search: ListingSearch): ListingSearch {
  return (snapshot, query) => (query.distinct ? foldedPage(search, snapshot, query, true) : search(snapshot, query));
}
