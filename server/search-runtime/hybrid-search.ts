// The listing search behind every surface (API, /browse, /ask, MCP, A2A): keyword search for `q`, and for
// `semantic` a hybrid of the listings' embedding vectors, the keyword engine and the popularity prior, fused
// by weighted reciprocal rank (src/docs/ranking.md, "Semantic search"). A `q` answer that is partial (few listings
// have every word: a request in plain words) is ranked by the same fusion after the listings with every word, its
// vectors ranking the best keyword matches on any word. Without embeddings (no vectors in the build, model still
// loading, a query with no word the model knows, or no answer from the vector worker in time) both run as
// keywords: Search-Mode: keyword-fallback.
import type { ListingQuery } from '../../src/domain/contract/listing-query.ts';
import type { SearchRequest, SearchResult } from '../../src/search/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { keywordListingSearch, SEARCH_MODE_HEADER, threadedKeywordSearch, type ListingAnswer, type ListingSearch } from './listing-search.ts';
import type { KeywordThread } from './keyword-thread.ts';
import { allWordsBoost, FUSION_WEIGHTS, fuse, SEMANTIC_CANDIDATES } from '../../src/search/ranking/fusion.ts';
import type { SemanticReady, SemanticSource } from './semantic-index.ts';

export type SearchMode = 'hybrid' | 'semantic' | 'keyword-fallback';

export interface HybridSearchOptions {
  /** 'hybrid' (default): vectors fused with keywords; 'vector': vectors alone (for evaluation). */
  fuse?: 'hybrid' | 'vector';
  /** Runs `q` searches off the event loop; absent: on this thread. */
  keywords?: KeywordThread | undefined;
}

type Filters = Pick<SearchRequest, 'types' | 'category' | 'owner' | 'updatedSince' | 'risk'>;

/** The query's filters, applied to every candidate list (vectors and keywords alike). */
function filtersOf(query: ListingQuery): Filters {
  return { types: query.types, category: query.category, owner: query.owner, updatedSince: query.updatedSince, risk: query.risk };
}

/** The answer with the Search-Mode header that says how it was ranked. */
function withMode(answer: ListingAnswer, mode: SearchMode): ListingAnswer {
  return { result: answer.result, headers: { ...answer.headers, [SEARCH_MODE_HEADER]: mode } };
}

/**
 * The keyword matches on any word among which the vectors rank a partial `q` answer: 512 ranks the judged requests
 * as well as 1,024 or every match, at a fraction of the vector worker's time
 * (bench/records/2026-11-24-semantic-candidates.md).
 */
export const PARTIAL_VECTOR_POOL = 4 * SEMANTIC_CANDIDATES;

// embedder.ts has the same test, but importing it would load transformers.js on the shim's thread.
function isZeroVector(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return false;
  return true;
}

export function createHybridSearch(source: SemanticSource, options: HybridSearchOptions = {}): ListingSearch {
  const fuseKeywords = (options.fuse ?? 'hybrid') === 'hybrid';

  const fallback = (snapshot: Snapshot, query: ListingQuery): ListingAnswer => withMode(keywordListingSearch(snapshot, query), 'keyword-fallback');

  /** The query's vector, or undefined when there is none (no embeddings yet, or no word the model knows). */
  const embedding = async (snapshot: Snapshot, text: string): Promise<{ ready: SemanticReady; vector: Float32Array } | undefined> => {
    const ready = source.ready(snapshot);
    const vector = await ready?.embed(text);
    return ready && vector && !isZeroVector(vector) ? { ready, vector } : undefined;
  };

  /** Vector candidates fused with the keyword candidates of the same text and the popularity prior. */
  const fused = (snapshot: Snapshot, text: string, nearest: number[], keywords: { any: number[]; all: number[] }): number[] =>
    fuse(
      { count: snapshot.store.count, idRank: snapshot.store.columns.idRank },
      [
        { docs: nearest, weight: FUSION_WEIGHTS.vectors },
        { docs: keywords.any, weight: FUSION_WEIGHTS.anyWord },
        { docs: keywords.all, weight: FUSION_WEIGHTS.allWords * allWordsBoost(text) },
      ],
      FUSION_WEIGHTS.popularity,
    );

  const page = (ranked: number[], query: ListingQuery): SearchResult => {
    const end = query.offset + query.limit;
    return { docs: ranked.slice(query.offset, end), hasMore: ranked.length > end, total: ranked.length, order: query.sort ?? 'relevance' };
  };

  /**
   * A partial `q` answer in relevance order, ranked by meaning: the listings with every word first, as keywords
   * rank them, then the fusion of the vectors and the keyword lists, the vectors ranking the best keyword matches on
   * any word (PARTIAL_VECTOR_POOL), so that every result holds a word of the request. The keyword answer, marked
   * as a fallback, when there are no vectors to rank by.
   */
  const partialAnswer = async (snapshot: Snapshot, query: ListingQuery, keywordAnswer: ListingAnswer): Promise<ListingAnswer> => {
    const text = query.q!;
    const embedded = await embedding(snapshot, text);
    const keywords = embedded && snapshot.engine.anyAndAllWords({ q: text, ...filtersOf(query), limit: PARTIAL_VECTOR_POOL });
    const nearest = keywords && (await embedded.ready.nearest(embedded.vector, Uint32Array.from(keywords.any).sort(), SEMANTIC_CANDIDATES));
    if (!nearest) return withMode(keywordAnswer, 'keyword-fallback');
    const lists = { any: keywords.any.slice(0, SEMANTIC_CANDIDATES), all: keywords.all.slice(0, SEMANTIC_CANDIDATES) };
    const full = new Set(keywords.full);
    const ranked = [...keywords.full, ...fused(snapshot, text, nearest, lists).filter((doc) => !full.has(doc))];
    const result = page(ranked, query);
    result.partial = true;
    return withMode({ result, headers: keywordAnswer.headers }, 'hybrid');
  };

  return async (snapshot, query) => {
    if (query.semantic === undefined) {
      const answer = await threadedKeywordSearch(options.keywords, snapshot, query);
      // An explicit sort orders every partial match by that sort: relevance has nothing to rank. A corrected
      // answer is not the request's words, which the vectors would rank by.
      return answer.result.partial && !query.sort && fuseKeywords && answer.result.corrected === undefined ? partialAnswer(snapshot, query, answer) : answer;
    }
    const embedded = await embedding(snapshot, query.semantic);
    if (!embedded) return fallback(snapshot, query);
    const { ready, vector } = embedded;

    const { engine, store } = snapshot;
    const filters = filtersOf(query);
    let ranked: number[];
    let mode: SearchMode;
    if (query.q !== undefined) {
      // q restricts (its words must match, as in a keyword search, filters applied); similarity ranks.
      // Sorted by installs, the matches come in document order, as vectorCandidates wants them.
      const matched = engine.search({ q: query.q, ...filters, sort: 'installs', offset: 0, limit: store.count }).docs;
      const nearest = await ready.nearest(vector, matched, SEMANTIC_CANDIDATES);
      if (!nearest) return fallback(snapshot, query);
      ranked = nearest;
      mode = 'semantic';
    } else {
      // The vector worker searches while this thread runs the keyword pass.
      const searching = ready.nearest(vector, engine.filterDocs(filters), SEMANTIC_CANDIDATES);
      const keywords = fuseKeywords ? engine.anyAndAllWords({ q: query.semantic, ...filters, limit: SEMANTIC_CANDIDATES }) : undefined;
      const nearest = await searching;
      if (!nearest) return fallback(snapshot, query);
      ranked = keywords ? fused(snapshot, query.semantic, nearest, keywords) : nearest;
      mode = keywords ? 'hybrid' : 'semantic';
    }

    if (query.sort) {
      // An explicit sort orders the relevant set by that sort (CONTRACT.md); relevance only chose the set.
      const { rank } = store.order(query.sort);
      ranked.sort(rank ? (a, b) => rank[a]! - rank[b]! : (a, b) => a - b);
    }
    return { result: page(ranked, query), headers: { [SEARCH_MODE_HEADER]: mode } };
  };
}
