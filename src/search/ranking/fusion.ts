// Hybrid fusion for semantic search, shared by the shim and the evaluation: the vector candidates of a query
// (exact, or from the approximate graph above a share of the catalog) and the weighted reciprocal rank fusion of
// ranked lists with the popularity prior (src/docs/ranking.md, "Semantic search"). Pure functions over the
// build's vectors and columns; server/search-runtime/hybrid-search.ts runs them for a snapshot.
import type { HnswIndex } from '../hnsw.ts';
import type { VectorIndex } from '../vectors.ts';

/** The vectors of a build: exact search over every row, and the approximate graph of a large catalog. */
export interface VectorSources {
  vectors: Pick<VectorIndex, 'count' | 'search' | 'searchSubset'>;
  ann?: HnswIndex | undefined;
}

/** What fusion reads of a catalog: its size and each document's rank by id (ties go to the lower id). */
export interface RankedCatalog {
  readonly count: number;
  readonly idRank: ArrayLike<number>;
}

/** Reciprocal rank fusion constant (Cormack et al. 2009): score = Σ weight / (RRF_K + rank). */
export const RRF_K = 60;
/**
 * Weights of the fused lists, tuned on the judged queries (npm run eval: its development set and
 * test/eval/own.jsonl): the vectors; the keyword engine on any word of the request; the keyword engine on
 * all its words (precise for keyword-like requests: the judged keyword and filtered kinds rank at least as
 * well as `q`); and the popularity prior, the listing's install rank scaled to POPULARITY_SPAN ranks.
 */
export const FUSION_WEIGHTS = { vectors: 1.25, anyWord: 1, allWords: 5, popularity: 0.2 } as const;
export const POPULARITY_SPAN = 300;
/**
 * A request of one or two words is a keyword search in all but name ("postgres", "browser automation"): its
 * all-words list counts SHORT_REQUEST_BOOST times more, so it ranks closer to `q`, the vectors still adding what
 * the words miss; one word counts ONE_WORD_BOOST times, so it ranks as `q` does (give or take a neighbour) and the
 * vectors add listings after `q`'s matches: a single word is no sentence for the encoder to read, and on the dev
 * set fusion at × 3 lowered five one-word requests below `q` (postgres 0.76 → 0.66, solana 0.96 → 0.88) and
 * raised three by 0.01-0.02. Longer requests are sentences and keep the weights above. Chosen on
 * the judged sets (npm run eval; dev semantic nDCG@10, keyword / filtered kinds; q: 0.903 / 0.650): one and two
 * words × 1 → 0.872 / –, × 3 → 0.886 / 0.653, × 12 → 0.903 / 0.643; one word × 15 and two × 3 → 0.903 / 0.651
 * (kept). nl and own.jsonl are unchanged by any of them (their requests are longer).
 */
export const SHORT_REQUEST_BOOST = 3;
export const ONE_WORD_BOOST = 15;
export const SHORT_REQUEST_WORDS = 2;

/** How many times the all-words keyword list counts for this request (1 for a sentence). */
export function allWordsBoost(text: string): number {
  const words = text.trim().split(/\s+/).length;
  return words === 1 ? ONE_WORD_BOOST : words <= SHORT_REQUEST_WORDS ? SHORT_REQUEST_BOOST : 1;
}
/**
 * Candidates taken from each ranked list; a semantic search returns at most their union. 128 ranks the judged
 * requests as well as 200 or 300 and costs less: the vector worker ranks fewer of the graph's candidates exactly,
 * and the keyword passes select fewer (bench/records/2026-11-24-semantic-candidates.md).
 */
export const SEMANTIC_CANDIDATES = 128;
/**
 * A filter admitting at most this share of the catalog is searched row by row (searchSubset, cost ∝ its
 * size); a broader one by the full scan fetching enough extra hits to survive the filter (the full scan
 * reads rows sequentially, about twice as fast per row).
 */
const SUBSET_SHARE = 0.5;
/**
 * With an approximate index, the share below which the exact subset is cheaper than asking the graph for
 * k / share × 2 candidates (measured: the two cost the same at this share).
 */
const ANN_SUBSET_SHARE = 0.25;

function membership(count: number, docs: ArrayLike<number>): (doc: number) => boolean {
  const marks = new Uint8Array(count);
  for (let i = 0; i < docs.length; i++) marks[docs[i]!] = 1;
  return (doc) => marks[doc] === 1;
}

/**
 * The `k` listings most similar to the query, best first, among `admitted` (a filter's or q's matches) or
 * all listings when undefined. Exact unless the snapshot has an approximate index and the set is large;
 * candidates from the index are ranked by their exact scores, so only the candidate set is approximate.
 */
export function vectorCandidates(ready: VectorSources, query: Float32Array, admitted: ArrayLike<number> | undefined, k: number): number[] {
  const { vectors, ann } = ready;
  const n = vectors.count;
  const indexes = (hits: ReadonlyArray<{ index: number }>) => hits.map((hit) => hit.index);
  if (admitted === undefined) return indexes(ann ? vectors.searchSubset(query, ann.nearest(query, k), k) : vectors.search(query, k));
  const want = Math.min(k, admitted.length);
  if (want === 0) return [];
  const share = admitted.length / n;
  if (share <= (ann ? ANN_SUBSET_SHARE : SUBSET_SHARE)) return indexes(vectors.searchSubset(query, admitted, k));
  // A broad filter: enough nearest rows that `want` of them pass, with margin.
  const fetch = Math.min(n, Math.ceil(want / share) * 2 + 32);
  const admit = membership(n, admitted);
  if (ann) {
    const docs = ann.nearest(query, fetch, admit);
    if (docs.length >= want) return indexes(vectors.searchSubset(query, docs, k));
    return indexes(vectors.searchSubset(query, admitted, k));
  }
  const docs: number[] = [];
  for (const hit of vectors.search(query, fetch)) {
    if (admit(hit.index)) docs.push(hit.index);
    if (docs.length === want) return docs;
  }
  return fetch === n ? docs : indexes(vectors.searchSubset(query, admitted, k));
}

/**
 * Weighted reciprocal rank fusion of ranked lists (each best first): score(d) = Σ_lists weight / (RRF_K + rank),
 * rank from 1, plus the popularity prior popularity / (RRF_K + 1 + POPULARITY_SPAN · installRank / count) for
 * every listing in some list (documents are numbered by installs). Ties go to the lower id, as everywhere.
 */
export function fuse(catalog: RankedCatalog, lists: ReadonlyArray<{ docs: readonly number[]; weight: number }>, popularity = 0): number[] {
  const { scores, seen } = scratchOf(catalog);
  const fused: number[] = [];
  for (const { docs, weight } of lists) {
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (seen[doc] === 0) {
        seen[doc] = 1;
        fused.push(doc);
      }
      scores[doc]! += weight / (RRF_K + i + 1);
    }
  }
  if (popularity > 0) {
    const scale = POPULARITY_SPAN / Math.max(1, catalog.count);
    for (const doc of fused) scores[doc]! += popularity / (RRF_K + 1 + doc * scale);
  }
  const { idRank } = catalog;
  fused.sort((a, b) => scores[b]! - scores[a]! || idRank[a]! - idRank[b]!);
  for (const doc of fused) {
    scores[doc] = 0;
    seen[doc] = 0;
  }
  return fused;
}

/**
 * Per catalog, a score and a seen mark per listing, all zero between calls: fusion adds into them and clears what it
 * touched. A Map of the few hundred candidates and a sort of [doc, score] pairs cost more than these lookups.
 */
const scratch = new WeakMap<ArrayLike<number>, { scores: Float64Array; seen: Uint8Array }>();

function scratchOf(catalog: RankedCatalog): { scores: Float64Array; seen: Uint8Array } {
  let arrays = scratch.get(catalog.idRank);
  if (!arrays || arrays.scores.length < catalog.count)
    scratch.set(catalog.idRank, (arrays = { scores: new Float64Array(catalog.count), seen: new Uint8Array(catalog.count) }));
  return arrays;
}
