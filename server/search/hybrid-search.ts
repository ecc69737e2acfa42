// The listing search behind every surface (API, /browse, /ask, MCP, A2A): keyword search for `q`, and for
// `semantic` a hybrid of the listings' embedding vectors, the keyword engine and the popularity prior, fused
// by weighted reciprocal rank (src/docs/ranking.md, "Semantic search"). Without embeddings (no vectors in the build, model still
// loading, a query with no word the model knows, or no answer from the vector worker in time) `semantic` runs as
// keywords: Search-Mode: keyword-fallback.
import type { SearchRequest, SearchResult } from '../../src/search/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { keywordListingSearch, SEARCH_MODE_HEADER, threadedKeywordSearch, type ListingAnswer, type ListingSearch } from './listing-search.ts';
import type { KeywordThread } from './keyword-thread.ts';
import { allWordsBoost, FUSION_WEIGHTS, fuse, SEMANTIC_CANDIDATES } from '../../src/search/fusion.ts';
import type { SemanticSource } from './semantic-index.ts';

export type SearchMode = 'hybrid' | 'semantic' | 'keyword-fallback';

export interface HybridSearchOptions {
  /** 'hybrid' (default): vectors fused with keywords; 'vector': vectors alone (for evaluation). */
  fuse?: 'hybrid' | 'vector';
  /** Runs `q` searches off the event loop; absent: on this thread. */
  keywords?: KeywordThread | undefined;
}

type Filters = Pick<SearchRequest, 'types' | 'category' | 'owner'>;

// embedder.ts has the same test, but importing it would load transformers.js on the shim's thread.
function isZeroVector(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return false;
  return true;
}

export function createHybridSearch(source: SemanticSource, options: HybridSearchOptions = {}): ListingSearch {
  const fuseKeywords = (options.fuse ?? 'hybrid') === 'hybrid';

  const fallback = (snapshot: Snapshot, query: Parameters<ListingSearch>[1]): ListingAnswer => {
    const answer = keywordListingSearch(snapshot, query);
    return { result: answer.result, headers: { ...answer.headers, [SEARCH_MODE_HEADER]: 'keyword-fallback' } };
  };

  return async (snapshot, query) => {
    if (query.semantic === undefined) return threadedKeywordSearch(options.keywords, snapshot, query);
    const ready = source.ready(snapshot);
    const vector = await ready?.embed(query.semantic);
    if (!ready || !vector || isZeroVector(vector)) return fallback(snapshot, query);

    const { engine, store } = snapshot;
    const filters: Filters = { types: query.types, category: query.category, owner: query.owner };
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
      if (keywords) {
        ranked = fuse(
          { count: store.count, idRank: store.columns.idRank },
          [
            { docs: nearest, weight: FUSION_WEIGHTS.vectors },
            { docs: keywords.any, weight: FUSION_WEIGHTS.anyWord },
            { docs: keywords.all, weight: FUSION_WEIGHTS.allWords * allWordsBoost(query.semantic) },
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
