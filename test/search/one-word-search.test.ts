// A one-word keyword search counts its matches with one bit each and ranks only its page, skipping blocks of
// postings that cannot reach it (strategies/one-word.ts, KeywordSearcher.topOfWord). These tests hold it to a brute
// force over the embedded snapshot's index: every match scored, filtered and sorted, then cut to the page.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { QueryEngine, type SearchRequest } from '../../src/search/query-engine.ts';
import { relevanceKey } from '../../src/search/ranking/relevance-key.ts';
import { KeywordSearcher } from '../../src/search/keyword-search.ts';
import { typeCode } from '../../src/domain/listing/listing-types.ts';
import { partialMatchScore, relevanceScore, type SortKey } from '../../src/domain/listing/ranking.ts';

let store: CatalogStore;
let engine: QueryEngine;
let searcher: KeywordSearcher;

beforeAll(async () => {
  store = new CatalogStore(join(await sharedBuildDir(), 'runtime'));
  engine = new QueryEngine(store);
  searcher = new KeywordSearcher(store.keywords);
});
afterAll(() => store.close());

type Filter = Pick<SearchRequest, 'types' | 'category' | 'owner' | 'updatedSince'>;

/** Every match of `q` the filter admits, ranked as a search must rank them: [docs in order, total]. */
function bruteForce(q: string, filter: Filter, sort: SortKey | undefined, mode: 'all' | 'any'): number[] {
  const { words, nameKey } = searcher.resolve(q);
  expect(words).toHaveLength(1);
  const { offsets, docs, impacts, nameKeys } = store.keywords;
  const best = new Map<number, number>();
  words[0]!.terms.forEach((term, i) => {
    for (let p = offsets[term]!; p < offsets[term + 1]!; p++) {
      const impact = Math.fround(impacts[p]! * words[0]!.factors[i]!);
      best.set(docs[p]!, Math.max(best.get(docs[p]!) ?? 0, impact));
    }
  });
  const { type, popularity, idRank, updated } = store.columns;
  const category = filter.category ? new Set(store.posting(`c:${filter.category}`)) : undefined;
  const owner = filter.owner ? new Set(store.posting(`o:${filter.owner.toLowerCase()}`)) : undefined;
  const admitted = [...best.keys()].filter(
    (doc) =>
      (!filter.types || filter.types.some((t) => typeCode(t as never) === type[doc])) &&
      (!category || category.has(doc)) &&
      (!owner || owner.has(doc)) &&
      updated[doc]! >= (filter.updatedSince ?? 0),
  );
  if (sort) {
    // A sort's order is its place in the build's order of that sort (real figures first; test/search/query-engine.test.ts
    // holds that order to the ranking module).
    const { rank } = store.order(sort);
    const place = (doc: number) => (rank ? rank[doc]! : doc);
    return admitted.sort((a, b) => place(a) - place(b));
  }
  const key = (doc: number) => {
    const relevance = relevanceScore(best.get(doc)!, nameKeys[doc] === nameKey, 0, popularity[doc]!);
    return relevanceKey(mode === 'any' ? partialMatchScore(relevance, 1, 1) : relevance, idRank[doc]!);
  };
  return admitted
    .map((doc) => [key(doc), doc] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, doc]) => doc);
}

/** The snapshot's terms by list length: the commonest words, middling ones and a few still being typed. */
function words(): string[] {
  const { offsets, terms } = store.keywords;
  const byLength = Array.from({ length: terms.length }, (_, t) => t).sort((a, b) => offsets[b + 1]! - offsets[b]! - (offsets[a + 1]! - offsets[a]!) || a - b);
  const plain = (t: number) => /^[a-z]{3,}$/.test(terms.at(t)!);
  const common = byLength.filter(plain).slice(0, 12);
  const middling = byLength.filter(plain).slice(300, 306);
  return [...common, ...middling].map((t) => terms.at(t)!).concat(['dat', 'post', 'kube', 'notion', 'zzzzqq']);
}

describe('one-word keyword search', () => {
  it('pages, counts and orders matches exactly as ranking every match does, under every filter and sort', () => {
    const owner = store
      .idOf(0)
      .replace(/^[^:]*:/, '')
      .split('/')[0]!;
    const since = [...store.columns.updated].sort((a, b) => a - b)[Math.floor(store.count / 2)]!;
    // Every kind of filter: none, types, a list (category, owner), both, and a date (the only one not counted as bits).
    const filters: Filter[] = [
      {},
      { types: ['skill'] },
      { types: ['mcp', 'plugin'] },
      { category: 'developer-tools' },
      { owner },
      { types: ['skill'], category: 'developer-tools' },
      { updatedSince: since },
    ];
    let compared = 0;
    for (const q of words()) {
      for (const filter of filters) {
        for (const sort of [undefined, 'installs', 'stars', 'trending'] as const) {
          for (const mode of sort ? (['all'] as const) : (['all', 'any'] as const)) {
            const expected = bruteForce(q, filter, sort, mode);
            for (const [offset, limit] of [
              [0, 20],
              [0, 50],
              [20, 20],
              [180, 20],
            ] as const) {
              const result = engine.search({ q, ...filter, sort, offset, limit, match: mode });
              const label = `${q} ${JSON.stringify(filter)} ${sort ?? 'relevance'} ${mode} @${offset}`;
              expect(result.docs, label).toEqual(expected.slice(offset, offset + limit));
              expect(result.total, label).toBe(expected.length);
              expect(result.hasMore, label).toBe(expected.length > offset + limit);
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1500);
  });
});

describe('several common words', () => {
  it('page, count and order their full matches exactly as the general path does, under every filter and sort', () => {
    // Pairs and a triple of the snapshot's commonest words: each in 1/16 of the listings or more, the queries
    // answered from their kept bits (strategies/all-common-words.ts). The general path ranks every match; a page ending
    // past 1,000 results takes it, so its first 1,000 are the reference.
    const common = words().slice(0, 6);
    const queries = [
      `${common[0]} ${common[1]}`,
      `${common[2]} ${common[3]}`,
      `${common[1]} ${common[4]}`,
      `${common[0]} ${common[5]}`,
      `${common[0]} ${common[1]} ${common[2]}`,
    ];
    const owner = store
      .idOf(0)
      .replace(/^[^:]*:/, '')
      .split('/')[0]!;
    const filters: Filter[] = [{}, { types: ['skill'] }, { types: ['mcp', 'plugin'] }, { category: 'developer-tools' }, { owner }];
    let compared = 0;
    for (const q of queries) {
      for (const filter of filters) {
        for (const sort of [undefined, 'installs', 'stars'] as const) {
          const reference = engine.search({ q, ...filter, sort, offset: 0, limit: 1000 });
          for (const [offset, limit] of [
            [0, 20],
            [20, 50],
            [200, 20],
          ] as const) {
            const result = engine.search({ q, ...filter, sort, offset, limit });
            const label = `${q} ${JSON.stringify(filter)} ${sort ?? 'relevance'} @${offset}`;
            expect(result.docs, label).toEqual(reference.docs.slice(offset, offset + limit));
            expect(result.total, label).toBe(reference.total);
            expect(result.partial, label).toBe(reference.partial);
            if (reference.total >= 10 && !reference.partial) compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
