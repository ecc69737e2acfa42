// Guarantees the search memory every surface shares (server/search/remembered-search.ts): a repeated request is
// answered without searching again and identically; paging, filters and the request text each make another
// answer; answers belong to their snapshot; a keyword fallback is never kept; and kept answers cannot be altered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { listingQuery } from '../../src/domain/listing-query.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { keywordListingSearch, type ListingSearch } from '../../server/search/listing-search.ts';
import { rememberedSearch } from '../../server/search/remembered-search.ts';

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

/** The real keyword search, counting how often it runs. */
function counted(): { search: ListingSearch; runs: () => number } {
  let runs = 0;
  return {
    search: async (s, q) => {
      runs++;
      return keywordListingSearch(s, q);
    },
    runs: () => runs,
  };
}

describe('rememberedSearch', () => {
  it('answers a repeated request from memory, identically', async () => {
    const inner = counted();
    const search = rememberedSearch(inner.search);
    const first = await search(snapshot, listingQuery({ q: 'postgres', limit: 10 }));
    const again = await search(snapshot, listingQuery({ q: 'postgres', limit: 10 }));
    expect(inner.runs()).toBe(1);
    expect(again.result.docs).toEqual(first.result.docs);
    expect(again.result.docs.length).toBe(10);
    expect(again).toEqual(keywordListingSearch(snapshot, listingQuery({ q: 'postgres', limit: 10 })));
  });

  it('searches again for another page, filter, sort or text', async () => {
    const inner = counted();
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
    await search(snapshot, listingQuery({ q: 'slack' }));
    await search(other, listingQuery({ q: 'slack' }));
    expect(inner.runs()).toBe(2);
    await search(snapshot, listingQuery({ q: 'slack' }));
    expect(inner.runs()).toBe(2);
    const closing = loadSnapshot(await sharedBuildDir());
    await search(closing, listingQuery({ q: 'slack' }));
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
    const search = rememberedSearch(async (s, q) => keywordListingSearch(s, q));
    const answer = await search(snapshot, listingQuery({ q: 'browser', limit: 5 }));
    expect(() => (answer.result.docs as number[]).sort((a, b) => b - a)).toThrow(TypeError);
    expect((await search(snapshot, listingQuery({ q: 'browser', limit: 5 }))).result.docs).toEqual(answer.result.docs);
  });
});
