// The query engine over the embedded snapshot's runtime artifacts, called directly (no server): each sort is the
// ranking module's order over the stored listings (real figures first, value desc, id asc), filters admit exactly what they say, pages concatenate to the
// whole answer, and a keyword search only returns listings holding every word.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { QueryEngine } from '../../src/search/query-engine.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { compareBy, SORTS, type RankedFields, type SortKey } from '../../src/domain/listing/ranking.ts';

let store: CatalogStore;
let engine: QueryEngine;
let listings: RankedFields[];

beforeAll(async () => {
  store = new CatalogStore(join(await sharedBuildDir(), 'runtime'));
  engine = new QueryEngine(store);
  listings = store.readJson(Array.from({ length: store.count }, (_, doc) => doc)).map((text) => JSON.parse(text) as RankedFields);
});
afterAll(() => store.close());

/** The expected order by brute force: every document the filter admits, sorted by the stored listings' figures. */
function bruteForce(sort: SortKey, admit: (doc: number) => boolean = () => true): number[] {
  const docs = Array.from({ length: store.count }, (_, doc) => doc).filter(admit);
  const compare = compareBy(sort);
  return docs.sort((a, b) => compare(listings[a]!, listings[b]!));
}

describe('the query engine', () => {
  it('orders by each sort as the ranking module does (real figures first), with the total of what the filters admit', () => {
    for (const sort of SORTS) {
      const result = engine.search({ sort, offset: 0, limit: 100 });
      expect(result.docs, sort).toEqual(bruteForce(sort).slice(0, 100));
      expect(result.total).toBe(store.count);
      expect(result.hasMore).toBe(true);
    }
  });

  it('filters by type and by types, early and exactly', () => {
    for (const [index, type] of LISTING_TYPES.entries()) {
      const expected = bruteForce('stars', (doc) => store.columns.type[doc] === index);
      const result = engine.search({ types: [type], sort: 'stars', offset: 0, limit: 50 });
      expect(result.docs, type).toEqual(expected.slice(0, 50));
      expect(result.total).toBe(expected.length);
    }
    const two = engine.search({ types: ['skill', 'mcp'], sort: 'installs', offset: 0, limit: 1 });
    expect(two.total).toBe(bruteForce('installs', (doc) => ['skill', 'mcp'].includes(LISTING_TYPES[store.columns.type[doc]!]!)).length);
    expect(two.docs).toEqual(bruteForce('installs', (doc) => ['skill', 'mcp'].includes(LISTING_TYPES[store.columns.type[doc]!]!)).slice(0, 1));
  });

  it('filters by update time', () => {
    const sorted = [...store.columns.updated].sort((a, b) => a - b);
    const since = sorted[Math.floor(sorted.length / 2)]!;
    const result = engine.search({ updatedSince: since, sort: 'installs', offset: 0, limit: 20 });
    expect(result.total).toBe(sorted.filter((value) => value >= since).length);
    for (const doc of result.docs) expect(store.columns.updated[doc]).toBeGreaterThanOrEqual(since);
  });

  it('pages through an answer without gaps or repeats', () => {
    const whole = engine.search({ types: ['mcp'], sort: 'trending', offset: 0, limit: 90 }).docs;
    const pages = [0, 30, 60].flatMap((offset) => engine.search({ types: ['mcp'], sort: 'trending', offset, limit: 30 }).docs);
    expect(pages).toEqual(whole);
  });

  it('returns only listings that hold every query word', () => {
    for (const q of ['database', 'browser automation', 'github']) {
      const result = engine.search({ q, offset: 0, limit: 40 });
      expect(result.docs.length, q).toBeGreaterThan(0);
      expect(result.order).toBe('relevance');
      if (result.partial) continue;
      const texts = store.readJson(result.docs);
      for (const text of texts) for (const word of q.split(' ')) expect(text.toLowerCase(), `${q}: ${text.slice(0, 80)}`).toContain(word);
    }
  });

  it('answers any-word and all-word searches from one pass exactly as two searches do', () => {
    // Full matches many, few (partial fallback), one word, none, stop words only, and a prefix still being typed.
    const queries = [
      'browser automation',
      'let my agent run SQL against a Postgres database',
      'convert pdf to markdown',
      'postgres',
      'google drive',
      'zzzzqq xyzzy',
      'the and',
      'kubernetes deploy',
      'slack notif',
    ];
    const filters = [{}, { types: ['mcp'] }, { types: ['skill', 'plugin'] }, { category: 'developer-tools' }];
    let partials = 0;
    for (const q of queries) {
      for (const filter of filters) {
        for (const limit of [200, 20]) {
          const both = engine.anyAndAllWords({ q, ...filter, limit });
          const all = engine.search({ q, ...filter, offset: 0, limit });
          if (all.partial) partials++;
          expect(both.any, `${q} ${JSON.stringify(filter)}`).toEqual(engine.search({ q, ...filter, offset: 0, limit, match: 'any' }).docs);
          expect(both.all, `${q} ${JSON.stringify(filter)}`).toEqual(all.docs);
        }
      }
    }
    // The table reaches the partial fallback, so both of its branches were compared.
    expect(partials).toBeGreaterThan(0);
  });
});
