// The listing search behind every surface (API, /browse, /ask, MCP, A2A): keyword search for `q`, and for
// `semantic` a hybrid of the listings' embedding vectors, the keyword engine and the popularity prior, fused
// by weighted reciprocal rank (src/docs/ranking.md, "Semantic search"). Without embeddings (no vectors in the build, model still
// loading, or a query with no word the model knows) `semantic` runs as keywords: Search-Mode: keyword-fallback.
import type { SearchRequest, SearchResult } from '../catalog/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { keywordListingSearch, SEARCH_MODE_HEADER, type ListingSearch } from './listing-search.ts';
import type { SemanticReady, SemanticSource } from './semantic-index.ts';

/** Reciprocal rank fusion constant (Cormack et al. 2009): score = Σ weight / (RRF_K + rank). */
export const RRF_K = 60;
/**
 * Weights of the fused lists, tuned on the judged queries (npm run eval; ../shared/relevance/dev.jsonl and
 * test/eval/own.jsonl): the vectors; the keyword engine on any word of the request; the keyword engine on
 * all its words (precise for keyword-like requests: the judged keyword and filtered kinds rank at least as
 * well as `q`); and the popularity prior, the listing's install rank scaled to POPULARITY_SPAN ranks.
 */
export const FUSION_WEIGHTS = { vectors: 1.25, anyWord: 1, allWords: 5, popularity: 0.2 } as const;
export const POPULARITY_SPAN = 300;
/**
 * A request of one or two words is a keyword search in all but name ("postgres", "browser automation"): its
 * all-words list counts this many times more, so it ranks closer to `q`, the vectors still adding what the words
 * miss. Longer requests are sentences and keep the weights above. Chosen on the judged sets (npm run eval; dev
 * keyword kind, semantic nDCG@10): 1 → 0.872, 3 → 0.886 (kept), 12 → 0.903 (= q) but filtered 0.659 → 0.643,
 * below q's 0.650; nl and own.jsonl unchanged by any of them (their requests are longer).
 */
export const SHORT_REQUEST_BOOST = 3;
export const SHORT_REQUEST_WORDS = 2;

export function isShortRequest(text: string): boolean {
  return text.trim().split(/\s+/).length <= SHORT_REQUEST_WORDS;
}
/**
 * Candidates taken from each ranked list; a semantic search returns at most their union. On the judged
 * queries (test/eval) 200 ranks as well as 300, and 100 slightly worse.
 */
export const SEMANTIC_CANDIDATES = 200;
/**
 * A filter admitting at most this share of the catalog is searched row by row (searchSubset, cost ∝ its
 * size); a broader one by the full scan fetching enough extra hits to survive the filter (the full scan
 * reads rows sequentially, about twice as fast per row).
 */
const SUBSET_SHARE = 0.5;
/**
 * With an approximate index, the share below which the exact subset is cheaper than asking the graph for
 * k / share × 2 candidates: at 100k rows both cost ≈5 ms at 25%.
 */
const ANN_SUBSET_SHARE = 0.25;

export type SearchMode = 'hybrid' | 'semantic' | 'keyword-fallback';

export interface HybridSearchOptions {
  /** 'hybrid' (default): vectors fused with keywords; 'vector': vectors alone (for evaluation). */
  fuse?: 'hybrid' | 'vector';
}

type Filters = Pick<SearchRequest, 'types' | 'category' | 'owner'>;

// embedder.ts has the same test, but importing it would load transformers.js on the shim's thread.
function isZeroVector(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return false;
  return true;
}

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
export function vectorCandidates(ready: Pick<SemanticReady, 'vectors' | 'ann'>, query: Float32Array, admitted: ArrayLike<number> | undefined, k: number): number[] {
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
export function fuse(snapshot: Snapshot, lists: ReadonlyArray<{ docs: readonly number[]; weight: number }>, popularity = 0): number[] {
  const scores = new Map<number, number>();
  for (const { docs, weight } of lists) {
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      scores.set(doc, (scores.get(doc) ?? 0) + weight / (RRF_K + i + 1));
    }
  }
  if (popularity > 0) {
    const scale = POPULARITY_SPAN / Math.max(1, snapshot.store.count);
    for (const [doc, score] of scores) scores.set(doc, score + popularity / (RRF_K + 1 + doc * scale));
  }
  const { idRank } = snapshot.store.columns;
  return [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || idRank[a]! - idRank[b]!);
}

export function createHybridSearch(source: SemanticSource, options: HybridSearchOptions = {}): ListingSearch {
  const fuseKeywords = (options.fuse ?? 'hybrid') === 'hybrid';

  const fallback: ListingSearch = (snapshot, query) => {
    const answer = keywordListingSearch(snapshot, query);
    return { result: answer.result, headers: { ...answer.headers, [SEARCH_MODE_HEADER]: 'keyword-fallback' } };
  };

  return (snapshot, query) => {
    if (query.semantic === undefined) return keywordListingSearch(snapshot, query);
    const ready = source.ready(snapshot);
    const vector = ready?.embed(query.semantic);
    if (!ready || !vector || isZeroVector(vector)) return fallback(snapshot, query);

    const { engine, store } = snapshot;
    const filters: Filters = { types: query.types, category: query.category, owner: query.owner };
    let ranked: number[];
    let mode: SearchMode;
    if (query.q !== undefined) {
      // q restricts (its words must match, as in a keyword search, filters applied); similarity ranks.
      // Sorted by installs, the matches come in document order, as vectorCandidates wants them.
      const matched = engine.search({ q: query.q, ...filters, sort: 'installs', offset: 0, limit: store.count }).docs;
      ranked = vectorCandidates(ready, vector, matched, SEMANTIC_CANDIDATES);
      mode = 'semantic';
    } else {
      const nearest = vectorCandidates(ready, vector, engine.filterDocs(filters), SEMANTIC_CANDIDATES);
      if (fuseKeywords) {
        const anyWord = engine.search({ q: query.semantic, ...filters, offset: 0, limit: SEMANTIC_CANDIDATES, match: 'any' }).docs;
        const allWords = engine.search({ q: query.semantic, ...filters, offset: 0, limit: SEMANTIC_CANDIDATES }).docs;
        ranked = fuse(
          snapshot,
          [
            { docs: nearest, weight: FUSION_WEIGHTS.vectors },
            { docs: anyWord, weight: FUSION_WEIGHTS.anyWord },
            { docs: allWords, weight: FUSION_WEIGHTS.allWords * (isShortRequest(query.semantic) ? SHORT_REQUEST_BOOST : 1) },
          ],
          FUSION_WEIGHTS.popularity,
        );
        mode = 'hybrid';
      } else {
        ranked = nearest;
        mode = 'semantic';
      }
    }

    if (query.sort) {
      // An explicit sort orders the relevant set by that sort (CONTRACT.md); relevance only chose the set.
      const { rank } = store.order(query.sort);
      ranked.sort(rank ? (a, b) => rank[a]! - rank[b]! : (a, b) => a - b);
    }
    const end = query.offset + query.limit;
    const result: SearchResult = { docs: ranked.slice(query.offset, end), hasMore: ranked.length > end, total: ranked.length, order: query.sort ?? 'relevance' };
    return { result, headers: { [SEARCH_MODE_HEADER]: mode } };
  };
}
