// Listing search over the in-memory catalog: the keyword index (src/search) finds and scores the keyword
// matches, typed arrays filter and order them. Everything here is synchronous and reuses scratch buffers, so a
// request never allocates per-listing objects; the shim is single-threaded, so the scratch state cannot be shared mid-query.
import { typeCode } from '../domain/listing-types.ts';
import { EXACT_NAME_BONUS, PHRASE_BONUS, partialMatchScore, relevanceScore, type SortKey } from '../domain/ranking.ts';
import { ALL_WORDS_SHARE, KeywordSearcher, PARTIAL_BELOW, type QueryWord, type ResolvedQuery, type WordRanking } from './keyword-search.ts';
import { LRUCache } from 'lru-cache';
import type { ListingQuery } from '../domain/listing-query.ts';
import type { CatalogStore } from '../artifacts/runtime-store.ts';
import { smallestK } from './top-k.ts';

export interface SearchRequest {
  q?: string | undefined;
  types?: readonly string[] | undefined;
  category?: string | undefined;
  owner?: string | undefined;
  /** Seconds since the epoch: only listings updated at or after it. */
  updatedSince?: number | undefined;
  /** Only audited listings of this audit level (the r:<level> posting list). */
  risk?: string | undefined;
  sort?: SortKey | undefined;
  offset: number;
  limit: number;
  /**
   * 'all': every word must match (listing search; partial matches follow, flagged, when few listings match all);
   * 'any': any word may match, listings with every word first (natural language).
   */
  match?: 'all' | 'any';
}

export interface SearchResult {
  docs: number[];
  hasMore: boolean;
  /**
   * Listings the answer ranks, on every page: those matching the query words (for a partial answer, its full and
   * partial matches) within the filters, or every listing the filters admit when there is no query.
   */
  total: number;
  /** How the result was ordered. */
  order: SortKey | 'relevance';
  /**
   * True when, in mode 'all', fewer than PARTIAL_BELOW listings matched every word, so the results are those
   * listings followed by the best partial matches (the Search-Match: partial response header).
   */
  partial?: boolean;
  /**
   * The query searched instead of `q` when `q` had no exact hits and some of its words are in no listing: those
   * words replaced by the closest terms of the index (the Search-Corrected response header).
   */
  corrected?: string;
}

interface Filter {
  typeMask: number;
  /** updatedSince in seconds (0: no date filter). */
  since: number;
  /** Posting lists every result must be in, smallest first. */
  lists: Uint32Array[];
}

const ALL_TYPES = 0xff;
/**
 * Filter lists (categories, owners) kept as one bit per listing, the most recently used: a filter repeats across
 * searches, and testing a bit of a catalog-sized bitset (125 KB at 1M listings, cache-resident) beats re-marking
 * a list of 100,000 members in a stamp array (4 MB) for every search, which took a quarter of a filtered search at 1M.
 */
const FILTER_BITS_CACHED = 16;
/**
 * Relevance sort keys pack (MAX_RELEVANCE - relevance) at 1e-3 precision above the id rank, so one numeric
 * Float64Array sort orders by relevance desc then id asc; both parts stay below 2^53 for up to 4M listings.
 */
const MAX_RELEVANCE = 1e5;
const RELEVANCE_SCALE = 1e3;
const ID_SPAN = 2 ** 22;
/**
 * A query of one word, or of several common words, whose page ends within this many results ranks with the
 * searcher's block-skipping top-k (topOfWord); deeper pages rank every match, as a bounded heap that large no
 * longer skips much.
 */
const TOP_OF_WORD_MAX = 1000;

/** Added to a block's bound: it covers the float32 rounding of the stored maxima (under 1e-6 of them; keys count 1e-3). */
const BOUND_SLACK = 1e-4;

/** The relevance sort key of one document for a one-word query, and the smallest key a block can hold. */
class OneWordRanking implements WordRanking {
  private readonly popularity: Float32Array;
  private readonly idRank: Uint32Array;
  private readonly nameKeys: Uint32Array;
  private readonly nameKey: number;
  /** Mode 'any' adds the partial-match terms (constant for one word, kept so keys equal the general path's). */
  private readonly ranked: boolean;

  constructor(popularity: Float32Array, idRank: Uint32Array, nameKeys: Uint32Array, nameKey: number, ranked: boolean) {
    this.popularity = popularity;
    this.idRank = idRank;
    this.nameKeys = nameKeys;
    this.nameKey = nameKey;
    this.ranked = ranked;
  }

  key(doc: number, impact: number, limit: number, nameBonus: boolean): number {
    const popularity = this.popularity[doc]!;
    // Most postings of a common word cannot reach the page: their name key and id rank (two more reads of
    // catalog-sized arrays) are not needed. Without the name bonus in the bound, the listings named as the query
    // were offered first (KeywordSearcher.topOfWord) at their best key, so skipping them here loses nothing.
    if (limit !== Infinity && this.bound(impact, popularity, Infinity, nameBonus) > limit) return limit;
    let relevance = relevanceScore(impact, this.nameKeys[doc] === this.nameKey, 0, popularity);
    if (this.ranked) relevance = partialMatchScore(relevance, 1, 1);
    return relevanceKey(relevance, this.idRank[doc]!);
  }

  bound(impact: number, popularity: number, score: number, nameBonus: boolean): number {
    let relevance = Math.min(relevanceScore(impact, nameBonus, 0, popularity), score + (nameBonus ? EXACT_NAME_BONUS : 0)) + BOUND_SLACK;
    if (this.ranked) relevance = partialMatchScore(relevance, 1, 1);
    return relevanceKey(relevance, 0);
  }
}

/**
 * The relevance key of a listing holding every word of a query of several, found through the blocks of its
 * cheapest word (KeywordSearcher.topOfWord): the key is the one matchAll's scores give; a block's bound adds to
 * the cheapest word's share the largest the other words can give, and every phrase bonus.
 */
class AllWordsRanking implements WordRanking {
  private readonly searcher: KeywordSearcher;
  private readonly query: ResolvedQuery;
  /** The query's words in matchAll's order (by cost), and the largest share each of their terms can give. */
  private readonly words: readonly QueryWord[];
  private readonly most: number[][];
  /** The largest shares of the words after the first, summed, plus every phrase bonus. */
  private readonly rest: number;
  private readonly popularity: Float32Array;
  private readonly idRank: Uint32Array;

  constructor(searcher: KeywordSearcher, query: ResolvedQuery, popularity: Float32Array, idRank: Uint32Array) {
    this.searcher = searcher;
    this.query = query;
    this.words = [...query.words].sort((a, b) => a.cost - b.cost);
    this.most = this.words.map((word) => searcher.termShares(word));
    this.rest = this.most.slice(1).reduce((sum, shares) => sum + shares.reduce((a, b) => Math.max(a, b), -Infinity), 0) + PHRASE_BONUS * query.pairs.length;
    this.popularity = popularity;
    this.idRank = idRank;
  }

  /** The word whose lists topOfWord reads: the cheapest. */
  get driver(): QueryWord {
    return this.words[0]!;
  }

  key(doc: number, impact: number, limit: number, nameBonus: boolean): number {
    const popularity = this.popularity[doc]!;
    if (limit !== Infinity && this.bound(impact, popularity, Infinity, nameBonus) > limit) return limit;
    const score = this.searcher.allWordsScore(doc, this.words, this.most);
    const relevance = relevanceScore(score, this.searcher.index.nameKeys[doc] === this.query.nameKey, this.searcher.phrasesOf(doc, this.query.pairs), popularity);
    return relevanceKey(relevance, this.idRank[doc]!);
  }

  bound(impact: number, popularity: number, score: number, nameBonus: boolean): number {
    const first = Math.min(relevanceScore(impact, nameBonus, 0, popularity), score + (nameBonus ? EXACT_NAME_BONUS : 0));
    return relevanceKey(first + this.rest + BOUND_SLACK * this.words.length, 0);
  }
}

/** The sort key of a relevance: higher relevance first (at 1e-3 precision), then the lower id rank. */
export function relevanceKey(relevance: number, idRank: number): number {
  return Math.round((MAX_RELEVANCE - relevance) * RELEVANCE_SCALE) * ID_SPAN + idRank;
}

export class QueryEngine {
  private readonly store: CatalogStore;
  private readonly searcher: KeywordSearcher;
  /** Filter list → its members as bits (FILTER_BITS_CACHED most recent). */
  private readonly filterBits = new LRUCache<Uint32Array, Uint32Array>({ max: FILTER_BITS_CACHED });
  private readonly byIdRank: Uint32Array;
  private readonly keys: Float64Array;
  /** Per type code, its listings as bits (made on first use). */
  private readonly typeSets: (Uint32Array | undefined)[] = [];
  /** Scratch: the current filter as bits (admittedBits). */
  private readonly admitted: Uint32Array;

  private readonly typeCounts: Uint32Array;
  /** Words of the latest keyword query (0 without one): which candidates matched them all is in the searcher's hits. */
  private lastQueryWords = 0;

  constructor(store: CatalogStore) {
    this.store = store;
    const n = store.count;
    this.searcher = new KeywordSearcher(store.keywords);
    this.byIdRank = new Uint32Array(n);
    this.keys = new Float64Array(n);
    this.admitted = new Uint32Array(Math.ceil(n / 32));
    const { idRank, type } = store.columns;
    for (let doc = 0; doc < n; doc++) this.byIdRank[idRank[doc]!] = doc;
    // Listings per type code: the total of a type-only filter without a pass over the catalog.
    this.typeCounts = new Uint32Array(32);
    for (let doc = 0; doc < n; doc++) this.typeCounts[type[doc]!]!++;
  }

  search(request: SearchRequest): SearchResult {
    this.lastQueryWords = 0;
    const filter = this.compileFilter(request);
    if (filter === undefined) return { docs: [], hasMore: false, total: 0, order: request.sort ?? (request.q ? 'relevance' : 'installs') };
    if (request.q !== undefined) return this.keyword(request, filter);
    return this.browse(request, filter);
  }

  /**
   * From one pass over the posting lists, the first page of a keyword search in mode 'any' (listings with every word
   * first) and of the same search in mode 'all' (the full matches, or the 'any' answer when fewer than PARTIAL_BELOW
   * listings match every word), as semantic fusion wants both (server/search/hybrid-search.ts), and the full matches
   * alone (`full`, which lead a partial answer). Equal to two search() calls: full matches rank first in mode 'any',
   * in the order mode 'all' gives them, so the page holds all of them or only them.
   */
  anyAndAllWords(request: Omit<SearchRequest, 'match' | 'sort' | 'offset'>): { any: number[]; all: number[]; full: number[] } {
    const { docs } = this.search({ ...request, offset: 0, sort: undefined, match: 'any' });
    const words = this.lastQueryWords;
    const { hits } = this.searcher;
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
  filterDocs(request: Pick<SearchRequest, 'types' | 'category' | 'owner' | 'updatedSince' | 'risk'>): Uint32Array | undefined {
    const filter = this.compileFilter(request);
    if (filter === undefined) return new Uint32Array(0);
    if (filter.lists.length === 0 && filter.typeMask === ALL_TYPES && filter.since === 0) return undefined;
    const driver = filter.lists[0];
    const test = this.predicate(filter, driver !== undefined);
    const n = driver ? driver.length : this.store.count;
    const out = new Uint32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const doc = driver ? driver[i]! : i;
      if (test(doc)) out[m++] = doc;
    }
    return out.subarray(0, m);
  }

  /** undefined when the filter can match nothing. */
  private compileFilter(request: Pick<SearchRequest, 'types' | 'category' | 'owner' | 'updatedSince' | 'risk'>): Filter | undefined {
    let typeMask = ALL_TYPES;
    if (request.types) {
      typeMask = 0;
      for (const t of request.types) typeMask |= 1 << typeCode(t as never);
      if (typeMask === 0) return undefined;
    }
    const lists: Uint32Array[] = [];
    if (request.category) lists.push(this.store.posting(`c:${request.category}`));
    if (request.owner) lists.push(this.store.posting(`o:${request.owner.toLowerCase()}`));
    if (request.risk) lists.push(this.store.posting(`r:${request.risk}`));
    if (lists.some((list) => list.length === 0)) return undefined;
    lists.sort((a, b) => a.length - b.length);
    return { typeMask, lists, since: request.updatedSince ?? 0 };
  }

  /**
   * The filter as bits, for counting a common word by intersection: null without a filter, undefined with a date
   * filter (tested per listing). Made per search from one bitset per type (made once each) and the lists' bits.
   */
  private admittedBits(filter: Filter): Uint32Array | null | undefined {
    if (filter.since > 0) return undefined;
    if (filter.lists.length === 0 && filter.typeMask === ALL_TYPES) return null;
    const out = this.admitted;
    out.fill(filter.typeMask === ALL_TYPES ? 0xffffffff : 0);
    if (filter.typeMask !== ALL_TYPES) {
      for (let code = 0; code < 8; code++) {
        if (((filter.typeMask >> code) & 1) === 0) continue;
        const bits = this.typeBits(code);
        for (let i = 0; i < out.length; i++) out[i]! |= bits[i]!;
      }
    }
    for (const list of filter.lists) {
      const bits = this.bitsOf(list);
      for (let i = 0; i < out.length; i++) out[i]! &= bits[i]!;
    }
    return out;
  }

  private typeBits(code: number): Uint32Array {
    let bits = this.typeSets[code];
    if (!bits) {
      const { type } = this.store.columns;
      bits = new Uint32Array(this.admitted.length);
      for (let doc = 0; doc < this.store.count; doc++) if (type[doc] === code) bits[doc >>> 5]! |= 1 << (doc & 31);
      this.typeSets[code] = bits;
    }
    return bits;
  }

  private bitsOf(list: Uint32Array): Uint32Array {
    let bits = this.filterBits.get(list);
    if (!bits) {
      bits = new Uint32Array(Math.ceil(this.store.count / 32));
      for (let i = 0; i < list.length; i++) bits[list[i]! >>> 5]! |= 1 << (list[i]! & 31);
      this.filterBits.set(list, bits);
    }
    return bits;
  }

  /** A predicate over the type mask, the update time and the posting lists (after the first, when the caller walks it). */
  private predicate(filter: Filter, skipFirstList: boolean): (doc: number) => boolean {
    if (filter.since > 0) {
      const { updated } = this.store.columns;
      const since = filter.since;
      const rest = this.predicate({ ...filter, since: 0 }, skipFirstList);
      return (doc) => updated[doc]! >= since && rest(doc);
    }
    const { type } = this.store.columns;
    const mask = filter.typeMask;
    const [a, b] = (skipFirstList ? filter.lists.slice(1) : filter.lists).map((list) => this.bitsOf(list));
    if (!a) return mask === ALL_TYPES ? () => true : (doc) => ((mask >> type[doc]!) & 1) === 1;
    if (!b) return (doc) => ((mask >> type[doc]!) & 1) === 1 && ((a[doc >>> 5]! >>> (doc & 31)) & 1) === 1;
    return (doc) => ((mask >> type[doc]!) & 1) === 1 && ((a[doc >>> 5]! >>> (doc & 31)) & 1) === 1 && ((b[doc >>> 5]! >>> (doc & 31)) & 1) === 1;
  }

  private browse(request: SearchRequest, filter: Filter): SearchResult {
    const sort = request.sort ?? 'installs';
    const { perm, rank } = this.store.order(sort);
    const want = request.offset + request.limit + 1;
    const n = this.store.count;

    if (filter.lists.length === 0 && filter.typeMask === ALL_TYPES && filter.since === 0) {
      return this.page(Array.from(perm.subarray(Math.min(request.offset, n), Math.min(want, n))), request, sort, n);
    }
    const driver = filter.lists[0];
    // With a posting list, either sort its members (cost ~ m log m) or walk the sort order until enough
    // members turn up (cost ~ want * n / m); pick the cheaper.
    if (driver && driver.length * Math.log2(driver.length + 2) < (want * n) / driver.length) {
      const test = this.predicate(filter, true);
      const keys = this.keys;
      let m = 0;
      for (let i = 0; i < driver.length; i++) {
        const doc = driver[i]!;
        if (test(doc)) keys[m++] = rank ? rank[doc]! : doc;
      }
      const top = smallestK(keys, m, want);
      const docs: number[] = [];
      for (let i = request.offset; i < top.length; i++) docs.push(perm[top[i]!]!);
      return this.page(docs, request, sort, m);
    }
    const total = this.countAdmitted(filter);
    const test = this.predicate(filter, false);
    const found: number[] = [];
    let seen = 0;
    for (let i = 0; i < n && found.length < request.limit + 1; i++) {
      const doc = perm[i]!;
      if (test(doc) && seen++ >= request.offset) found.push(doc);
    }
    return this.page(found, request, sort, total);
  }

  /** Listings a filter admits: per-type counts alone, or one pass over its smallest posting list. */
  private countAdmitted(filter: Filter): number {
    const driver = filter.lists[0];
    if (!driver && filter.since === 0) {
      let total = 0;
      for (let code = 0; code < this.typeCounts.length; code++) if ((filter.typeMask >> code) & 1) total += this.typeCounts[code]!;
      return total;
    }
    const test = this.predicate(filter, driver !== undefined);
    const n = driver ? driver.length : this.store.count;
    let total = 0;
    for (let i = 0; i < n; i++) if (test(driver ? driver[i]! : i)) total++;
    return total;
  }

  /**
   * A keyword search; when it has no exact hits (no listing holds every word) and some word is in no listing, the
   * search of the corrected query instead, if that finds listings and, when the first found some, exact hits.
   * Only in mode 'all', the mode of `q`: 'any' gathers candidates for semantic fusion, where every word helps.
   */
  private keyword(request: SearchRequest, filter: Filter): SearchResult {
    const result = this.keywordOf(request, filter, request.q!);
    if (request.match === 'any' || (result.total > 0 && !result.partial)) return result;
    const text = this.searcher.correctedText(request.q!);
    if (text === undefined) return result;
    const corrected = this.keywordOf(request, filter, text);
    if (corrected.total === 0 || (result.total > 0 && corrected.partial)) return result;
    corrected.corrected = text;
    return corrected;
  }

  private keywordOf(request: SearchRequest, filter: Filter, text: string): SearchResult {
    const store = this.store;
    const order = request.sort ?? 'relevance';
    const query = this.searcher.resolve(text);
    this.lastQueryWords = query.words.length;
    if (query.words.length === 0) return { docs: [], hasMore: false, total: 0, order };
    const test = this.predicate(filter, false);
    if (query.words.length === 1 && request.offset + request.limit + 1 <= TOP_OF_WORD_MAX) return this.oneWord(request, filter, query.words[0]!, query.nameKey, test);
    const common = query.words.every((word) => word.cost >= store.count / ALL_WORDS_SHARE);
    if (common && request.match !== 'any' && request.offset + request.limit + 1 <= TOP_OF_WORD_MAX) {
      const answer = this.allCommonWords(request, filter, query);
      if (answer) return answer;
    }
    const found = this.searcher.match(query, test, request.match ?? 'all');
    const { score, hits, phrases, index } = this.searcher;
    const { popularity, idRank } = store.columns;
    const words = query.words.length;
    const keys = this.keys;
    const rank = request.sort ? store.order(request.sort).rank : undefined;
    const ranked = request.match === 'any' || found.partial;
    for (let i = 0; i < found.count; i++) {
      const doc = found.docs[i]!;
      if (request.sort) {
        keys[i] = rank ? rank[doc]! : doc;
        continue;
      }
      let relevance = relevanceScore(score[doc]!, index.nameKeys[doc] === query.nameKey, phrases[doc]!, popularity[doc]!);
      if (ranked) relevance = partialMatchScore(relevance, hits[doc]!, words);
      keys[i] = relevanceKey(relevance, idRank[doc]!);
    }
    const sorted = smallestK(keys, found.count, request.offset + request.limit + 1);
    const want = sorted.length;
    const docs: number[] = [];
    if (request.sort) {
      const { perm } = store.order(request.sort);
      for (let i = request.offset; i < want; i++) docs.push(perm[sorted[i]!]!);
    } else {
      for (let i = request.offset; i < want; i++) docs.push(this.byIdRank[sorted[i]! % ID_SPAN]!);
    }
    const result = this.page(docs, request, order, found.count);
    if (found.partial) result.partial = true;
    return result;
  }

  /**
   * A one-word query (the commonest kind, and the costliest when the word is common): its matches are counted
   * with one bit each, and only the page is ranked: by relevance with the searcher's block-skipping top-k, by a
   * sort either walking the sort order until the page is full or keying every match, whichever reads less.
   * Equal, page for page, to ranking every match (test/search/one-word-search.test.ts).
   */
  private oneWord(request: SearchRequest, filter: Filter, word: QueryWord, nameKey: number, test: (doc: number) => boolean): SearchResult {
    const searcher = this.searcher;
    const want = request.offset + request.limit + 1;
    const unfiltered = filter.lists.length === 0 && filter.typeMask === ALL_TYPES && filter.since === 0;
    if (!request.sort) {
      const { offsets } = searcher.index;
      const term = word.terms[0];
      // One term and no filter: the list's length is the count, with no pass over it.
      const total = word.terms.length === 0 ? 0 : unfiltered && word.terms.length === 1 ? offsets[term! + 1]! - offsets[term!]! : searcher.countWord(word, test, () => this.admittedBits(filter));
      const { popularity, idRank } = this.store.columns;
      const ranking = new OneWordRanking(popularity, idRank, searcher.index.nameKeys, nameKey, request.match === 'any');
      const docs = total === 0 ? [] : searcher.topOfWord(word, nameKey, test, want, ranking).slice(request.offset);
      return this.page(docs, request, 'relevance', total);
    }
    const total = searcher.countWord(word, test, () => this.admittedBits(filter));
    const { perm, rank } = this.store.order(request.sort);
    const n = this.store.count;
    const docs: number[] = [];
    if (total > 0 && (want * n) / total < word.cost) {
      // Common word: the page is near the top of the sort order.
      let seen = 0;
      for (let i = 0; i < n && docs.length <= request.limit; i++) {
        const doc = perm[i]!;
        if (searcher.isMarked(doc) && test(doc) && seen++ >= request.offset) docs.push(doc);
      }
    } else {
      const keys = this.keys;
      let m = 0;
      searcher.eachMarked(word, test, (doc) => (keys[m++] = rank ? rank[doc]! : doc));
      const sorted = smallestK(keys, m, want);
      for (let i = request.offset; i < sorted.length; i++) docs.push(perm[sorted[i]!]!);
    }
    return this.page(docs, request, request.sort, total);
  }

  /**
   * A query of several words that are all common (each in 1/ALL_WORDS_SHARE of the catalog or more, the costliest
   * kind to intersect): its full matches are the intersection of the words' kept bits, and only the page is
   * ranked, through the blocks of the cheapest word as for one word. Undefined when it needs the general path:
   * a date filter, or fewer than PARTIAL_BELOW full matches (the partial answer).
   */
  private allCommonWords(request: SearchRequest, filter: Filter, query: ResolvedQuery): SearchResult | undefined {
    const admitted = this.admittedBits(filter);
    if (admitted === undefined) return undefined;
    const { bits, count } = this.searcher.matchedAll(query, admitted);
    if (count < PARTIAL_BELOW) return undefined;
    const want = request.offset + request.limit + 1;
    const matched = (doc: number) => ((bits[doc >>> 5]! >>> (doc & 31)) & 1) === 1;
    if (request.sort) {
      const { perm, rank } = this.store.order(request.sort);
      const n = this.store.count;
      const docs: number[] = [];
      if ((want * n) / count < bits.length + count) {
        // Many matches: the page is near the top of the sort order.
        for (let i = 0, seen = 0; i < n && docs.length <= request.limit; i++) if (matched(perm[i]!) && seen++ >= request.offset) docs.push(perm[i]!);
      } else {
        const keys = this.keys;
        let m = 0;
        for (let i = 0; i < bits.length; i++) {
          for (let word = bits[i]!; word !== 0; word &= word - 1) {
            const doc = i * 32 + (31 - Math.clz32(word & -word));
            keys[m++] = rank ? rank[doc]! : doc;
          }
        }
        const sorted = smallestK(keys, m, want);
        for (let i = request.offset; i < sorted.length; i++) docs.push(perm[sorted[i]!]!);
      }
      return this.page(docs, request, request.sort, count);
    }
    const { popularity, idRank } = this.store.columns;
    const ranking = new AllWordsRanking(this.searcher, query, popularity, idRank);
    const docs = this.searcher.topOfWord(ranking.driver, query.nameKey, matched, want, ranking).slice(request.offset);
    return this.page(docs, request, 'relevance', count);
  }

  private page(docs: number[], request: SearchRequest, order: SortKey | 'relevance', total: number): SearchResult {
    const hasMore = docs.length > request.limit;
    if (hasMore) docs.length = request.limit;
    return { docs, hasMore, total, order };
  }
}
