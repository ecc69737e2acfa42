// Listing search as every surface calls it (the listing routes, /ask, MCP, A2A, ARD, the registry API, /browse):
// a query in, documents and the headers that say how they were found out. Keyword search here; semantic search
// (server/search/hybrid-search.ts) falls back to it. Routes only parse, call this and serialise.
import type { ListingQuery } from '../../src/domain/listing-query.ts';
import { withUrl } from '../../src/domain/listing-view.ts';
import { QueryEngine, type SearchResult } from '../catalog/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { SEARCH_MATCH_HEADER, SEARCH_MODE_HEADER } from '../../src/domain/response-headers.ts';


export { SEARCH_MATCH_HEADER, SEARCH_MODE_HEADER } from '../../src/domain/response-headers.ts';

export interface ListingSearch {
  (snapshot: Snapshot, query: ListingQuery): { result: SearchResult; headers: Record<string, string> };
}

export const keywordListingSearch: ListingSearch = (snapshot, query): { result: SearchResult; headers: Record<string, string> } => {
  if (query.semantic !== undefined && query.q === undefined) {
    const result = snapshot.engine.search({ ...QueryEngine.fromQuery(query, query.semantic), match: 'any' });
    return { result, headers: { [SEARCH_MODE_HEADER]: 'keyword-fallback' } };
  }
  const result = snapshot.engine.search(QueryEngine.fromQuery(query, query.q));
  return { result, headers: result.partial ? { [SEARCH_MATCH_HEADER]: 'partial' } : {} };
};

/** The public JSON of each document, with its page URL on this service. */
export function listingsJson(baseUrl: string, snapshot: Snapshot, docs: ArrayLike<number>): string[] {
  const { store } = snapshot;
  return store.readJson(docs).map((json, i) => withUrl(json, store.slugOf(docs[i]!), baseUrl));
}
