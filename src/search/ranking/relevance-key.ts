// Relevance as one sortable number: the relevance formula's score (src/domain/listing/ranking.ts) packed with the id rank
// into a key that orders by relevance descending, then id ascending, so a numeric top-k ranks a page. The word
// rankings give the block-skipping top-k of KeywordSearcher.topOfWord a key per listing and a bound per block.
import { EXACT_NAME_BONUS, PHRASE_BONUS, partialMatchScore, relevanceScore } from '../../domain/listing/ranking.ts';
import type { KeywordSearcher, QueryWord, ResolvedQuery, WordRanking } from '../keyword-search.ts';

/**
 * Relevance sort keys pack (MAX_RELEVANCE - relevance) at 1e-3 precision above the id rank, so one numeric
 * Float64Array sort orders by relevance desc then id asc; both parts stay below 2^53 for up to 4M listings.
 */
const MAX_RELEVANCE = 1e5;
const RELEVANCE_SCALE = 1e3;
/** A key's id rank is its remainder modulo ID_SPAN. */
export const ID_SPAN = 2 ** 22;

/** Added to a block's bound: it covers the float32 rounding of the stored maxima (keys count 1e-3). */
const BOUND_SLACK = 1e-4;

/** The sort key of a relevance: higher relevance first (at 1e-3 precision), then the lower id rank. */
export function relevanceKey(relevance: number, idRank: number): number {
  return Math.round((MAX_RELEVANCE - relevance) * RELEVANCE_SCALE) * ID_SPAN + idRank;
}

/** The relevance sort key of one document for a one-word query, and the smallest key a block can hold. */
export class OneWordRanking implements WordRanking {
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
export class AllWordsRanking implements WordRanking {
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
    const relevance = relevanceScore(
      score,
      this.searcher.index.nameKeys[doc] === this.query.nameKey,
      this.searcher.phrasesOf(doc, this.query.pairs),
      popularity,
    );
    return relevanceKey(relevance, this.idRank[doc]!);
  }

  bound(impact: number, popularity: number, score: number, nameBonus: boolean): number {
    const first = Math.min(relevanceScore(impact, nameBonus, 0, popularity), score + (nameBonus ? EXACT_NAME_BONUS : 0));
    return relevanceKey(first + this.rest + BOUND_SLACK * this.words.length, 0);
  }
}
