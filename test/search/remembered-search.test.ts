// Guarantees the search memory every surface shares (server/search-runtime/remembered-search.ts): a repeated request is
// answered without searching again and identically; paging, filters and the request text each make another
// answer; answers belong to their snapshot; a keyword fallback and a page of keyword results are never kept, a
// keyword answer deeper than KEYWORD_DEPTH_KEPT is; and kept answers cannot be altered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { listingQuery } from '../../src/domain/contract/listing-query.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { keywordListingSearch, type ListingSearch } from '../../server/search-runtime/listing-search.ts';
import { KEYWORD_DEPTH_KEPT, rememberedSearch } from '../../server/search-runtime/remembered-search.ts';

let snapshot: Snapshot;
let other: Snapshot;
beforeAll(async () => {
  snapshot = loadSnapshot(await sharedBuildDir());
  other = loadSnapshot(await sharedBuildDir());
});
afterAll(() => {
  snapshot.close();
  other.close();
});

/**
 * The real keyword search, counting how often it runs. With `mode`, its answers say they were ranked so (the shared
 * build has no vectors): the memory decides on what an answer says, as it does for the hybrid search's.
 */
function counted(mode?: 'hybrid' | 'semantic'): { search: ListingSearch; runs: () => number } {
  let runs = 0;
  return {
    search: async (s, q) => {
      runs++;
      const answer = keywordListingSearch(s, q);
      return mode ? { result: answer.result, headers: { ...answer.headers, 'Search-Mode': mode } } : answer;
    },
    runs: () => runs,
  };
}

/** Deep enough into the matches for a keyword answer to be kept. */
const DEEP = KEYWORD_DEPTH_KEPT + 1;

describe('rememberedSearch', () => {
  it('answers a repeated request from memory, identically', async () => {
    const inner = counted('hybrid');
    const search = rememberedSearch(inner.search);
    const first = await search(snapshot, listingQuery({ q: 'postgres', limit: 10 }));
    const again = await search(snapshot, listingQuery({ q: 'postgres', limit: 10 }));
    expect(inner.runs()).toBe(1);
    expect(again.result.docs).toEqual(first.result.docs);
    expect(again.result.docs.length).toBe(10);
    expect(again.result).toEqual(keywordListingSearch(snapshot, listingQuery({ q: 'postgres', limit: 10 })).result);
  });

  it('searches a page of keyword results again rather than keeping it, and keeps a deeper one', async () => {
    const inner = counted();
    const search = rememberedSearch(inner.search);
    const page = listingQuery({ q: 'postgres', limit: 20, offset: KEYWORD_DEPTH_KEPT - 20 });
    await search(snapshot, page);
    const again = await search(snapshot, page);
    expect(inner.runs()).toBe(2);
    expect(again).toEqual(keywordListingSearch(snapshot, page));
    const deep = listingQuery({ q: 'postgres', limit: DEEP });
    const first = await search(snapshot, deep);
    expect((await search(snapshot, deep)).result.docs).toEqual(first.result.docs);
    expect(inner.runs()).toBe(3);
    expect(first.result.total).toBeGreaterThan(0);
  });

  it('searches again for another page, filter, sort or text', async () => {
    const inner = counted('semantic');
    const search = rememberedSearch(inner.search);
    const variants = [
      { q: 'postgres', limit: 10 },
      { q: 'postgres', limit: 10, offset: 10 },
      { q: 'postgres', limit: 20 },
      { q: 'postgres', limit: 10, types: ['mcp' as const] },
      { q: 'postgres', limit: 10, sort: 'stars' as const },
      { q: 'postgres', limit: 10, owner: 'someone' },
      { q: 'postgresql', limit: 10 },
      { semantic: 'postgres', limit: 10 },
    ];
    for (const v of variants) await search(snapshot, listingQuery(v));
    expect(inner.runs()).toBe(variants.length);
    expect((await search(snapshot, listingQuery({ q: 'postgres', limit: 10, offset: 10 }))).result.docs).toEqual(
      keywordListingSearch(snapshot, listingQuery({ q: 'postgres', limit: 10, offset: 10 })).result.docs,
    );
  });

  it('keeps answers with their snapshot: another snapshot never gets them', async () => {
    const inner = counted();
    const search = rememberedSearch(inner.search);
    await search(snapshot, listingQuery({ q: 'slack', limit: DEEP }));
    await search(other, listingQuery({ q: 'slack', limit: DEEP }));
    expect(inner.runs()).toBe(2);
    await search(snapshot, listingQuery({ q: 'slack', limit: DEEP }));
    expect(inner.runs()).toBe(2);
    const closing = loadSnapshot(await sharedBuildDir());
    await search(closing, listingQuery({ q: 'slack', limit: DEEP }));
    closing.close();
    expect(inner.runs()).toBe(3);
  });

  it('never keeps a keyword fallback (semantic search may be ready next time)', async () => {
    const inner = counted();
    const search = rememberedSearch(inner.search);
    // Without a semantic index, keywordListingSearch answers `semantic` as a fallback.
    const answer = await search(snapshot, listingQuery({ semantic: 'weather forecast' }));
    expect(answer.headers['Search-Mode']).toBe('keyword-fallback');
    await search(snapshot, listingQuery({ semantic: 'weather forecast' }));
    expect(inner.runs()).toBe(2);
  });

  it('hands out kept answers that cannot be altered by a caller', async () => {
    const search = rememberedSearch(counted('hybrid').search);
    const answer = await search(snapshot, listingQuery({ q: 'browser', limit: 5 }));
    expect(() => (answer.result.docs as number[]).sort((a, b) => b - a)).toThrow(TypeError);
    expect((await search(snapshot, listingQuery({ q: 'browser', limit: 5 }))).result.docs).toEqual(answer.result.docs);
  });
});
