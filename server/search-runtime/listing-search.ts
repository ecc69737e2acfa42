// Listing search as every surface calls it (the listing routes, /ask, MCP, A2A, ARD, the registry API, /browse):
// a query in, documents and the headers that say how they were found out. Keyword search here; semantic search
// (server/search-runtime/hybrid-search.ts) falls back to it. Routes only parse, call this and serialise.
import type { ListingQuery } from '../../src/domain/contract/listing-query.ts';
import { QueryEngine, type SearchResult } from '../../src/search/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import type { KeywordThread } from './keyword-thread.ts';
import { SEARCH_CORRECTED_HEADER, SEARCH_MATCH_HEADER, SEARCH_MODE_HEADER } from '../../src/domain/contract/response-headers.ts';

export { SEARCH_CORRECTED_HEADER, SEARCH_MATCH_HEADER, SEARCH_MODE_HEADER } from '../../src/domain/contract/response-headers.ts';

/** The documents of one page of a search and the headers that say how they were found. */
export interface ListingAnswer {
  result: SearchResult;
  headers: Record<string, string>;
}

/**
 * A listing search as every surface calls it: asynchronous end to end, since a semantic request may wait for its
 * query embedding (an operator's model runs in a worker; the wait is bounded and falls back to keywords).
 */
export type ListingSearch = (snapshot: Snapshot, query: ListingQuery) => Promise<ListingAnswer>;

/** The keyword engine's answer, computed on this thread (it never waits for anything). */
export function keywordListingSearch(snapshot: Snapshot, query: ListingQuery): ListingAnswer {
  if (query.semantic !== undefined && query.q === undefined) {
    const result = snapshot.engine.search({ ...QueryEngine.fromQuery(query, query.semantic), match: 'any' });
    return { result, headers: { [SEARCH_MODE_HEADER]: 'keyword-fallback' } };
  }
  return keywordAnswer(snapshot.engine.search(QueryEngine.fromQuery(query, query.q)));
}

/** The same answer for a `q` search, computed by the keyword worker when there is one (keyword-thread.ts). */
export async function threadedKeywordSearch(thread: KeywordThread | undefined, snapshot: Snapshot, query: ListingQuery): Promise<ListingAnswer> {
  if (!thread || query.semantic !== undefined) return keywordListingSearch(snapshot, query);
  return keywordAnswer(await thread.search(snapshot, QueryEngine.fromQuery(query, query.q)));
}

function keywordAnswer(result: SearchResult): ListingAnswer {
  const headers: Record<string, string> = {};
  if (result.partial) headers[SEARCH_MATCH_HEADER] = 'partial';
  if (result.corrected !== undefined) headers[SEARCH_CORRECTED_HEADER] = encodeURIComponent(result.corrected);
  return { result, headers };
}
