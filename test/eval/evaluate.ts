// Relevance evaluation of the listing search: judged queries run through the same ListingSearch functions the
// shim uses, scored like ../shared/relevance/score.mjs (graded gains 2^g − 1, nDCG@10, recall@10 capped at
// min(#relevant, 10), MRR), per kind (nl, keyword, filtered). Used by `npm run eval` (test/eval/run.ts) and
// by test/semantic/relevance.test.ts.
//
// Judged sets, one JSON record a line: {qid, query, kind: 'nl' | 'keyword' | 'filtered', type?, relevant: {id: grade}}
//   ../shared/relevance/dev.jsonl   the shared development half (65 queries; absent on a fresh clone)
//   test/eval/own.jsonl             the project's own set (natural-language requests, grade 1)
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listingQuery, type ListingQuery } from '../../src/domain/contract/listing-query.ts';
import type { ListingType } from '../../src/domain/listing/listing-types.ts';
import type { Snapshot } from '../../server/catalog/snapshot.ts';
import { keywordListingSearch, type ListingSearch } from '../../server/search-runtime/listing-search.ts';
import { createHybridSearch } from '../../server/search-runtime/hybrid-search.ts';
import type { SemanticSource } from '../../server/search-runtime/semantic-index.ts';

export type QueryKind = 'nl' | 'keyword' | 'filtered';

export interface JudgedQuery {
  qid: string;
  query: string;
  kind: QueryKind;
  /** For kind 'filtered': the type filter the query runs with. */
  type?: ListingType;
  /** Listing id → grade (2 highly relevant, 1 relevant); anything else is not relevant. */
  relevant: Record<string, number>;
}

export const OWN_SET = join(import.meta.dirname, 'own.jsonl');
export const DEV_SET = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'relevance', 'dev.jsonl');

export function loadQueries(path: string): JudgedQuery[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as JudgedQuery);
}

/** The judged sets present: the project's own, and the shared dev set when it is next to the project. */
export function judgedSets(devPath = DEV_SET): Array<{ name: string; queries: JudgedQuery[] }> {
  const sets = [{ name: 'own', queries: loadQueries(OWN_SET) }];
  if (existsSync(devPath)) sets.unshift({ name: 'dev', queries: loadQueries(devPath) });
  return sets;
}

export const CUTOFF = 10;
const gain = (grade: number) => 2 ** grade - 1;

/** nDCG@k with graded gains 2^g − 1 and discount log2(rank + 1); a listing counts once. */
export function ndcgAt(ranked: readonly string[], relevant: Readonly<Record<string, number>>, k = CUTOFF): number {
  let dcg = 0;
  [...new Set(ranked)].slice(0, k).forEach((id, i) => {
    dcg += gain(relevant[id] ?? 0) / Math.log2(i + 2);
  });
  let ideal = 0;
  Object.values(relevant)
    .sort((a, b) => b - a)
    .slice(0, k)
    .forEach((grade, i) => {
      ideal += gain(grade) / Math.log2(i + 2);
    });
  return ideal === 0 ? 0 : dcg / ideal;
}

/** recall@k capped: relevant listings in the first k / min(#relevant, k). */
export function recallAt(ranked: readonly string[], relevant: Readonly<Record<string, number>>, k = CUTOFF): number {
  const total = Object.values(relevant).filter((g) => g > 0).length;
  if (total === 0) return 0;
  return [...new Set(ranked)].slice(0, k).filter((id) => (relevant[id] ?? 0) > 0).length / Math.min(total, k);
}

/** Reciprocal rank of the first relevant listing in the first k (0 when none). */
export function reciprocalRank(ranked: readonly string[], relevant: Readonly<Record<string, number>>, k = CUTOFF): number {
  const first = ranked.slice(0, k).findIndex((id) => (relevant[id] ?? 0) > 0);
  return first < 0 ? 0 : 1 / (first + 1);
}

export interface SystemUnderTest {
  name: string;
  search: ListingSearch;
  /** The listing query a judged query becomes for this system (the type filter is added for 'filtered'). */
  query(text: string): Partial<ListingQuery>;
}

/**
 * The systems compared: the keyword engine alone, `q` as served (its partial answers ranked by meaning), vectors
 * alone, and `semantic` as served (hybrid).
 */
export function systems(semantic: SemanticSource): SystemUnderTest[] {
  return [
    { name: 'keywords', search: async (snapshot, query) => keywordListingSearch(snapshot, query), query: (text) => ({ q: text }) },
    { name: 'q', search: createHybridSearch(semantic), query: (text) => ({ q: text }) },
    { name: 'vectors', search: createHybridSearch(semantic, { fuse: 'vector' }), query: (text) => ({ semantic: text }) },
    { name: 'hybrid', search: createHybridSearch(semantic), query: (text) => ({ semantic: text }) },
  ];
}

export async function runQuery(
  snapshot: Snapshot,
  system: SystemUnderTest,
  judged: Pick<JudgedQuery, 'query' | 'kind' | 'type'>,
  limit = CUTOFF,
): Promise<{ ids: string[]; mode: string }> {
  const types = judged.kind === 'filtered' && judged.type ? [judged.type] : undefined;
  const query: ListingQuery = listingQuery({ limit, types, ...system.query(judged.query) });
  const { result, headers } = await system.search(snapshot, query);
  return { ids: result.docs.map((doc) => snapshot.store.idOf(doc)), mode: headers['Search-Mode'] ?? 'keyword' };
}

export interface Metrics {
  n: number;
  ndcg: number;
  recall: number;
  mrr: number;
}

export interface SystemScore {
  name: string;
  /** Per kind, plus 'overall'. */
  byKind: Record<string, Metrics>;
  /** Queries a vector system answered by keywords (should be 0). */
  fallbacks: number;
  perQuery: Array<{ qid: string; query: string; kind: QueryKind; ndcg: number; recall: number; rr: number; ids: string[] }>;
}

function aggregate(rows: ReadonlyArray<{ ndcg: number; recall: number; rr: number }>): Metrics {
  const mean = (pick: (r: { ndcg: number; recall: number; rr: number }) => number) => rows.reduce((s, r) => s + pick(r), 0) / Math.max(1, rows.length);
  return { n: rows.length, ndcg: mean((r) => r.ndcg), recall: mean((r) => r.recall), mrr: mean((r) => r.rr) };
}

export async function evaluate(
  snapshot: Snapshot,
  semantic: SemanticSource,
  queries: readonly JudgedQuery[],
  list: SystemUnderTest[] = systems(semantic),
): Promise<SystemScore[]> {
  const scores: SystemScore[] = [];
  for (const system of list) {
    let fallbacks = 0;
    const perQuery = [];
    for (const judged of queries) {
      const { ids, mode } = await runQuery(snapshot, system, judged);
      if (mode === 'keyword-fallback' && system.name !== 'keywords') fallbacks++;
      perQuery.push({
        qid: judged.qid,
        query: judged.query,
        kind: judged.kind,
        ndcg: ndcgAt(ids, judged.relevant),
        recall: recallAt(ids, judged.relevant),
        rr: reciprocalRank(ids, judged.relevant),
        ids,
      });
    }
    const byKind: Record<string, Metrics> = {};
    for (const kind of ['nl', 'keyword', 'filtered'] as const) {
      const rows = perQuery.filter((q) => q.kind === kind);
      if (rows.length) byKind[kind] = aggregate(rows);
    }
    byKind.overall = aggregate(perQuery);
    scores.push({ name: system.name, byKind, fallbacks, perQuery });
  }
  return scores;
}
