// Relevance evaluation of the listing search: judged natural-language queries (queries.json) run through the
// same ListingSearch functions the shim uses, scored by nDCG@10 and recall@10. Used by `npm run eval`
// (test/eval/run.ts) and by test/semantic/relevance.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listingQuery, type ListingQuery } from '../../src/domain/listing-query.ts';
import type { Snapshot } from '../../server/catalog/live-catalog.ts';
import { keywordListingSearch, type ListingSearch } from '../../server/routes/catalog-routes.ts';
import { createHybridSearch } from '../../server/search/hybrid-search.ts';
import type { SemanticSource } from '../../server/search/semantic-index.ts';

export interface JudgedQuery {
  query: string;
  /** The listing type(s) the request is after, for coverage; not passed as a filter. */
  seeks: string[];
  /** Listing ids judged relevant (binary relevance). */
  relevant: string[];
  notes?: string;
}

export const QUERIES_PATH = join(import.meta.dirname, 'queries.json');

export function loadQueries(path = QUERIES_PATH): JudgedQuery[] {
  return JSON.parse(readFileSync(path, 'utf8')) as JudgedQuery[];
}

export const CUTOFF = 10;

/** nDCG@k with binary gains: DCG = Σ rel_i / log2(i + 1) over ranks i = 1..k, divided by the ideal DCG. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k = CUTOFF): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** recall@k: the share of the judged-relevant listings found in the first k. */
export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k = CUTOFF): number {
  if (relevant.size === 0) return 0;
  return ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
}

export interface SystemUnderTest {
  name: string;
  search: ListingSearch;
  /** The listing query a natural-language request becomes for this system. */
  query(text: string): Partial<ListingQuery>;
}

/** The systems compared: the keyword engine (as `q`, and on any word as the fallback runs), vectors alone, hybrid. */
export function systems(semantic: SemanticSource): SystemUnderTest[] {
  return [
    { name: 'keyword (q)', search: keywordListingSearch, query: (text) => ({ q: text }) },
    { name: 'keyword (any word)', search: keywordListingSearch, query: (text) => ({ semantic: text }) },
    { name: 'semantic (vectors)', search: createHybridSearch(semantic, { fuse: 'vector' }), query: (text) => ({ semantic: text }) },
    { name: 'hybrid (RRF)', search: createHybridSearch(semantic), query: (text) => ({ semantic: text }) },
  ];
}

export function runQuery(snapshot: Snapshot, system: SystemUnderTest, text: string, limit = CUTOFF): { ids: string[]; mode: string } {
  const query: ListingQuery = listingQuery({ limit, ...system.query(text) });
  const { result, headers } = system.search(snapshot, query);
  return { ids: result.docs.map((doc) => snapshot.store.ids[doc]!), mode: headers['Search-Mode'] ?? 'keyword' };
}

export interface SystemScore {
  name: string;
  ndcg: number;
  recall: number;
  /** Queries whose search fell back to keywords (should be 0 for the embedding systems). */
  fallbacks: number;
  perQuery: Array<{ query: string; ndcg: number; recall: number; ids: string[] }>;
}

export function evaluate(snapshot: Snapshot, semantic: SemanticSource, queries: readonly JudgedQuery[]): SystemScore[] {
  return systems(semantic).map((system) => {
    const perQuery = queries.map((judged) => {
      const { ids, mode } = runQuery(snapshot, system, judged.query);
      const relevant = new Set(judged.relevant);
      return { query: judged.query, ndcg: ndcgAt(ids, relevant), recall: recallAt(ids, relevant), ids, fallback: mode === 'keyword-fallback' && system.name !== 'keyword (any word)' };
    });
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    return {
      name: system.name,
      ndcg: mean(perQuery.map((q) => q.ndcg)),
      recall: mean(perQuery.map((q) => q.recall)),
      fallbacks: perQuery.filter((q) => q.fallback).length,
      perQuery: perQuery.map(({ query, ndcg, recall, ids }) => ({ query, ndcg, recall, ids })),
    };
  });
}
