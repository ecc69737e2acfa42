// A listing search is a pure function of (snapshot, query), so every surface shares one memory of recent
// answers: a repeated request (an agent retrying, a popular question asked of /ask or MCP search_catalog, a
// page reload) costs a map lookup instead of a vector and keyword search. Answers of another snapshot are
// never returned, and a keyword fallback (the model still loading) is never kept. Distinct requests are
// unaffected; their cost is the engine's (npm run bench, sem-unique). Unlike the answer cache of the listing
// routes (whole bodies, admitted on their second request: admitting-cache.ts), an answer here is a page of
// document numbers, small enough to keep on first sight: a second request then costs the bytes, not the search.
// Admitted on the second request instead (AdmittingCache), distinct semantic and MCP searches lost most of their
// requests/s: each was searched twice, and once the keyword tail filled the memory the frequency test kept them
// out (bench/records/2026-11-23-answer-cache.md).
// A page of keyword results is not kept. The keyword worker makes one in tens of microseconds, and keeping every
// distinct one cost the main thread more than the repeats saved: freezing it, inserting it and evicting another, and
// carrying it through the young generation into the old one (bench/records/2026-11-24-keyword-worker.md). Every
// `q` request still looks the memory up, since its answer may be hybrid (a partial match ranked by vectors), and
// skipping the lookup too saved little. The listing routes still keep the bodies of keyword pages
// asked again (search-cache.ts), and the agent surfaces (MCP, A2A, /ask) search with `semantic`, whose answers are
// kept.
import { LRUCache } from 'lru-cache';
import type { ListingQuery } from '../../src/domain/contract/listing-query.ts';
import { snapshotResource } from '../catalog/snapshot.ts';
import { SEARCH_MODE_HEADER, type ListingAnswer, type ListingSearch } from './listing-search.ts';

type Answer = ListingAnswer;

/** Answers kept: each holds one page of document numbers and its headers. */
export const REMEMBERED_SEARCHES = 5_000;

/**
 * A keyword answer is kept when it reaches deeper than this into the matches (offset + limit). The callers that ask
 * for every match (the registry API and MCP's skills, which page through one search) then rank them once.
 */
export const KEYWORD_DEPTH_KEPT = 100;

/** The exact query, every field that changes the answer (no hash: a collision would answer another query). */
function queryKey(query: ListingQuery): string {
  return JSON.stringify([
    query.q,
    query.semantic,
    query.types,
    query.category,
    query.owner,
    query.updatedSince,
    query.sort,
    query.offset,
    query.limit,
    query.risk,
    query.distinct,
  ]);
}

/** Whether an answer costs more to make again than to keep: vectors were searched, or keywords ranked a deep list. */
function worthKeeping(query: ListingQuery, answer: Answer): boolean {
  const mode = answer.headers[SEARCH_MODE_HEADER];
  if (mode === 'keyword-fallback') return false;
  return mode !== undefined || query.offset + query.limit > KEYWORD_DEPTH_KEPT;
}

export function rememberedSearch(search: ListingSearch, max = REMEMBERED_SEARCHES): ListingSearch {
  // Answers belong to one snapshot and are kept with it: a rebuild starts with an empty memory.
  const memories = snapshotResource('remembered-searches', () => new LRUCache<string, Answer>({ max }));
  return async (snapshot, query) => {
    const memory = snapshot.get(memories);
    const key = queryKey(query);
    const kept = memory.get(key);
    if (kept) return kept;
    const answer = await search(snapshot, query);
    if (worthKeeping(query, answer)) {
      // Shared by every caller from now on: frozen, so a caller that reorders it fails loudly instead.
      Object.freeze(answer.result.docs);
      Object.freeze(answer.result);
      Object.freeze(answer.headers);
      memory.set(key, answer);
    }
    return answer;
  };
}
