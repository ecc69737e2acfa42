// Search answers are pure functions of (snapshot, request), so the shim keeps recent ones: a repeated
// query (the common case: popular searches, page reloads, agents retrying) costs a map lookup instead of a
// full keyword match. Bounded by bytes; an answer is kept from its second request on (admitting-cache.ts); emptied
// when a rebuild swaps the snapshot. Small (a few hundred pages): with the listing bytes in memory a miss costs a
// search and a copy, so the memory is worth more to the listings than to more answers.
import { AdmittingCache } from './admitting-cache.ts';

export interface CachedSearch {
  body: Buffer;
  headers: Record<string, string>;
  /** Listings on the page, for the search-trend counters that run on hits too. */
  docs: number[];
  offset: number;
}

export function createSearchCache(maxBytes = 16 * 1024 * 1024): AdmittingCache<CachedSearch> {
  return new AdmittingCache<CachedSearch>({
    maxSize: maxBytes,
    sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + entry.docs.length * 8 + 200,
  });
}
