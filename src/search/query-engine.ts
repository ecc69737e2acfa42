// Listing search over the in-memory catalog: the keyword index (src/search) finds and scores the keyword
// matches, typed arrays filter and order them. The engine compiles the filters, picks a strategy (browse without
// words; for words one word, all common words, or the general path; strategies/) and retries a query with no
// exact hits with its spelling corrected.
import { ALL_WORDS_SHARE, KeywordSearcher, PARTIAL_BELOW } from './keyword-search.ts';
import type { ListingQuery } from '../domain/contract/listing-query.ts';
import type { CatalogStore } from '../artifacts/runtime-store.ts';
import { compileFilter, FilterBits, type Filter, type FilterRequest } from './filter.ts';
import { TOP_OF_WORD_MAX, wanted, type EngineParts, type SearchRequest, type SearchResult } from './strategies/parts.ts';
import { browse } from './strategies/browse.ts';
import { oneWord } from './strategies/one-word.ts';
import { allCommonWords } from './strategies/all-common-words.ts';
import { general } from './strategies/general.ts';

export type { SearchRequest, SearchResult } from './strategies/parts.ts';

export class QueryEngine {
  private readonly parts: EngineParts;
  /** Words of the latest keyword query (0 without one): which candidates matched them all is in the searcher's hits. */
  private lastQueryWords = 0;

  constructor(store: CatalogStore) {
    const n = store.count;
    const byIdRank = new Uint32Array(n);
    const { idRank } = store.columns;
    for (let doc = 0; doc < n; doc++) byIdRank[idRank[doc]!] = doc;
    this.parts = { store, searcher: new KeywordSearcher(store.keywords), filters: new FilterBits(store), keys: new Float64Array(n), byIdRank };
  }

  search(request: SearchRequest): SearchResult {
    this.lastQueryWords = 0;
    const filter = compileFilter(this.parts.store, request);
    if (filter === undefined) return { docs: [], hasMore: false, total: 0, order: request.sort ?? (request.q ? 'relevance' : 'installs') };
    if (request.q !== undefined) return this.keyword(request, filter);
    return browse(this.parts, request, filter);
  }

  /**
   * From one pass over the posting lists, the first page of a keyword search in mode 'any' (listings with every word
   * first) and of the same search in mode 'all' (the full matches, or the 'any' answer when fewer than PARTIAL_BELOW
   * listings match every word), as semantic fusion wants both (server/search-runtime/hybrid-search.ts), and the full matches
   * alone (`full`, which lead a partial answer). Equal to two search() calls: full matches rank first in mode 'any',
   * in the order mode 'all' gives them, so the page holds all of them or only them.
   */
  anyAndAllWords(request: Omit<SearchRequest, 'match' | 'sort' | 'offset'>): { any: number[]; all: number[]; full: number[] } {
    const { docs } = this.search({ ...request, offset: 0, sort: undefined, match: 'any' });
    const words = this.lastQueryWords;
    const { hits } = this.parts.searcher;
    // Every match of a one-word query matches all its words (and oneWord() leaves the hits untouched).
    const full = words === 1 ? docs : docs.filter((doc) => hits[doc] === words);
    return { any: docs, all: words > 1 && full.length < PARTIAL_BELOW ? docs : full, full };
  }

  /** Listing query → search request (the parameters SERVICE.md 4.1 gives to /api/v1/listings). */
  static fromQuery(query: ListingQuery, q: string | undefined): SearchRequest {
    return {
      q,
      types: query.types,
      category: query.category,
      owner: query.owner,
      updatedSince: query.updatedSince,
      risk: query.risk,
      sort: query.sort,
      offset: query.offset,
      limit: query.limit,
      match: 'all',
    };
  }

  /**
   * The documents the request's filters (type/types, category, owner) admit, ascending; undefined when nothing
   * is filtered. The same filter search() applies, for candidates found outside the keyword index (vectors).
   */
  filterDocs(request: FilterRequest): Uint32Array | undefined {
    const filter = compileFilter(this.parts.store, request);
    if (filter === undefined) return new Uint32Array(0);
    return this.parts.filters.admittedDocs(filter);
  }

  /**
   * A keyword search; when it has no exact hits (no listing holds every word) and some word is in no listing, the
   * search of the corrected query instead, if that finds listings and, when the first found some, exact hits.
   * Only in mode 'all', the mode of `q`: 'any' gathers candidates for semantic fusion, where every word helps.
   */
  private keyword(request: SearchRequest, filter: Filter): SearchResult {
    const result = this.keywordOf(request, filter, request.q!);
    if (request.match === 'any' || (result.total > 0 && !result.partial)) return result;
    const text = this.parts.searcher.correctedText(request.q!);
    if (text === undefined) return result;
    const corrected = this.keywordOf(request, filter, text);
    if (corrected.total === 0 || (result.total > 0 && corrected.partial)) return result;
    corrected.corrected = text;
    return corrected;
  }

  /** The strategy for the query's words: one word or all common words on a shallow page, else the general path. */
  private keywordOf(request: SearchRequest, filter: Filter, text: string): SearchResult {
    const { store, searcher, filters } = this.parts;
    const query = searcher.resolve(text);
    this.lastQueryWords = query.words.length;
    if (query.words.length === 0) return { docs: [], hasMore: false, total: 0, order: request.sort ?? 'relevance' };
    const test = filters.predicate(filter, false);
    const shallow = wanted(request) <= TOP_OF_WORD_MAX;
    if (query.words.length === 1 && shallow) return oneWord(this.parts, request, filter, query.words[0]!, query.nameKey, test);
    const common = query.words.every((word) => word.cost >= store.count / ALL_WORDS_SHARE);
    if (common && request.match !== 'any' && shallow) {
      const answer = allCommonWords(this.parts, request, filter, query);
      if (answer) return answer;
    }
    return general(this.parts, request, query, test);
  }
}
