// A listing search is a pure function of (snapshot, query), so every surface shares one memory of recent
// answers: a repeated request (an agent retrying, a popular question asked of /ask or MCP search_catalog, a
// page reload) costs a map lookup instead of a vector and keyword search. Answers of another snapshot are
// never returned, and a keyword fallback (the model still loading) is never kept. An answer is kept from its
// second request on, as the listing routes' answer cache keeps bodies (admitting-cache.ts): kept on first sight,
// every distinct request of the long tail became an entry that lived ~0.5 s and died in the old generation. On
// the bench's 20,000 distinct keyword searches (q-unique, 100k listings), full collections went from 21 to 15 in
// 10 s, and requests/s from 10.4k to 10.7k (three alternating runs, within their noise).
import type { ListingQuery } from '../../src/domain/listing-query.ts';
import { AdmittingCache } from '../catalog/admitting-cache.ts';
import { snapshotResource } from '../catalog/snapshot.ts';
import { SEARCH_MODE_HEADER, type ListingAnswer, type ListingSearch } from './listing-search.ts';

type Answer = ListingAnswer;

/** Answers kept: each holds one page of document numbers (at most 100) and its headers. */
export const REMEMBERED_SEARCHES = 5_000;

/** The exact query, every field that changes the answer (no hash: a collision would answer another query). */
function queryKey(query: ListingQuery): string {
  return JSON.stringify([query.q, query.semantic, query.types, query.category, query.owner, query.updatedSince, query.sort, query.offset, query.limit]);
}

export function rememberedSearch(search: ListingSearch, max = REMEMBERED_SEARCHES): ListingSearch {
  // Answers belong to one snapshot and are kept with it: a rebuild starts with an empty memory.
  const memories = snapshotResource('remembered-searches', () => new AdmittingCache<Answer>({ max }));
  return async (snapshot, query) => {
    const memory = snapshot.get(memories);
    const key = queryKey(query);
    const kept = memory.get(key);
    if (kept) return kept;
    const answer = await search(snapshot, query);
    if (answer.headers[SEARCH_MODE_HEADER] !== 'keyword-fallback' && memory.offer(key, answer)) {
      // Shared by every caller from now on: frozen, so a caller that reorders it fails loudly instead.
      Object.freeze(answer.result.docs);
      Object.freeze(answer.result);
      Object.freeze(answer.headers);
    }
    return answer;
  };
}
