// Query execution over the keyword index: resolves query words to terms, intersects (or unites) their
// posting lists with the caller's filter applied as each document is first seen, and leaves per-document
// impact sums, matched-word counts and phrase counts in scratch arrays for the caller to rank; or, for one word
// and for several common words, counts the matches as bits and ranks only a page, skipping the blocks of postings
// that cannot reach it (topOfWord). Synchronous and allocation-free per document; one searcher per loaded index,
// used by one thread.
import { LRUCache } from 'lru-cache';
import { idf, PHRASE_FIELDS, PREFIX_FACTOR } from '../domain/listing/ranking.ts';
import { BLOCK_SIZE, type KeywordIndexData } from './index-file.ts';
import { compounds, hash32, joinsParts, nameKey, normalize, parseQuery, parts, type Token } from './tokenizer.ts';
import { closestTerm } from './spelling.ts';
import { StampSet } from './stamp-set.ts';
import { lowerBound, partitionPoint } from './lower-bound.ts';
import { smallestK, TopDocs } from './ranking/top-k.ts';

/** Shortest last word that is also matched as a prefix ("postg" → postgres, postgresql). */
export const PREFIX_MIN_LENGTH = 3;
/** At most this many terms (the most frequent) stand for one prefix. */
export const PREFIX_MAX_TERMS = 64;
/** Term ids below this fit in a prefix-selection key beside the frequency (the index holds far fewer terms). */
const TERM_SPAN = 2 ** 22;
/**
 * A query of several words that fewer listings than this match in full is answered with the full matches
 * first, then the best partial matches (flagged partial): a natural-language request rarely has every word
 * in the listing that answers it. The threshold depends on the query only, so every page agrees.
 */
export const PARTIAL_BELOW = 10;

/**
 * Resolved queries kept, the most recently used: a query's words come back with other filters, sorts and pages,
 * and resolving a query, the last word's prefix most of all, was a large share of an in-process search. The
 * bench's long tail of distinct searches fits (bench/records/2026-11-24-keyword-longtail.md), so after its first
 * pass every resolution there is remembered; a text seen once more than RESOLVED_CACHE_SIZE texts ago is resolved again.
 */
export const RESOLVED_CACHE_SIZE = 4096;

/** A resolved query is shared by every search of the same text (RESOLVED_CACHE_SIZE): read-only. */
export interface QueryWord {
  readonly token: Token;
  /** Term ids the word matches; the first is the whole word when the index has it. */
  readonly terms: readonly number[];
  /** Share of the impact each term counts for (1 for the whole word, PREFIX_FACTOR for a prefix). */
  readonly factors: readonly number[];
  /** Total posting length: the cost of walking this word. */
  readonly cost: number;
  /** For each of `terms`, its first block of maxima, or -1 when its list is too short to have blocks. */
  readonly blocks: readonly number[];
}

/**
 * How one word's matches rank: a document's key (smaller ranks first) and the smallest key a block can hold.
 * `nameBonus` says whether a bound must allow for the exact-name bonus: not once topOfWord has offered the listings
 * named as the query, which it does unless there are more than NAMED_MAX of them.
 */
export interface WordRanking {
  /** The document's key, or any key at or above `limit` when it cannot be below it (so it may skip reading more). */
  key(doc: number, impact: number, limit: number, nameBonus: boolean): number;
  /**
   * A key no document of a block can be below, from the block's maxima: of its impacts (times the term's
   * factor), of its popularity priors, and of its impact-plus-popularity scores (Infinity when the factor is
   * above 1 and that maximum bounds nothing).
   */
  bound(impact: number, popularity: number, score: number, nameBonus: boolean): number;
}

/**
 * A word is common, and countWord keeps its documents as bits, when it has at least 1/WORD_BITS_SHARE as many
 * postings as the catalog has listings: intersecting bits then reads less than its lists (the commonest words at
 * 1M listings: bench/records/2026-11-24-keyword-longtail.md).
 */
export const WORD_BITS_SHARE = 16;
/** Common words kept as bits, one bitset of the catalog's size each. */
export const WORD_BITS_CACHED = 32;
/**
 * A query of several words is answered from their bits (strategies/all-common-words.ts) when each has at least
 * 1/ALL_WORDS_SHARE as many postings as the catalog has listings: intersecting bits then costs less than
 * matchAll's walk, which pays for every candidate (bench/records/2026-11-24-keyword-longtail.md).
 */
export const ALL_WORDS_SHARE = 64;

/**
 * Listings named as a one-word query that topOfWord offers before reading any block, so that block bounds can
 * leave out the exact-name bonus (which halved the postings a search reads at 1M). Past this many (a scaled
 * catalog of 1M has 19,872 listings named "mcp"; the real one 101), looking each up costs more than it saves.
 */
export const NAMED_MAX = 256;

export interface ResolvedQuery {
  readonly words: readonly QueryWord[];
  /** hash32 of the query's name key, compared with each listing's for the exact-name bonus. */
  readonly nameKey: number;
  /** Term ids of neighbouring query words joined with the stop words between them ("speech to text" → speechtotext). */
  readonly pairs: readonly number[];
}

export interface MatchResult {
  /** Candidate documents, first `count` entries valid (a scratch view, overwritten by the next search). */
  docs: Uint32Array;
  count: number;
  /** True when no document matched every word and the candidates match only some (best partial matches). */
  partial: boolean;
}

export class KeywordSearcher {
  readonly index: KeywordIndexData;
  /** Summed term impacts of each candidate. */
  readonly score: Float32Array;
  /** Query words each candidate matched. */
  readonly hits: Uint8Array;
  /** Adjacent query-word pairs each candidate has joined in its name or description. */
  readonly phrases: Uint8Array;
  private readonly wordScore: Float32Array;
  private readonly candidates: Uint32Array;
  private readonly seen: StampSet;
  private readonly wordSeen: StampSet;
  /** One bit per document: the matches of a one-word query, for counting them once and testing membership. */
  private readonly marks: Uint32Array;
  private readonly top: TopDocs;
  /** Scratch: matchedAll's documents. */
  private readonly allMarks: Uint32Array;
  /** Common words' documents as bits (see countWord). */
  private readonly commonWords = new LRUCache<string, Uint32Array>({ max: WORD_BITS_CACHED, dispose: (bits) => this.spareBits.push(bits) });
  /** Bits of words no longer kept, reused rather than allocated anew (each is catalog-sized). */
  private readonly spareBits: Uint32Array[] = [];
  /** Postings the latest topOfWord scored (the rest were in skipped blocks). */
  scored = 0;
  /** topOfWord's blocks of one query: bound, term (index in the word), first posting, and the reading order. */
  private blockBounds = new Float64Array(32);
  private blockTerm = new Uint8Array(32);
  private blockFrom = new Uint32Array(32);
  private blockOrder = new Uint32Array(32);
  /** Query text → its resolution, the most recent RESOLVED_CACHE_SIZE. */
  private readonly resolved = new LRUCache<string, ResolvedQuery>({ max: RESOLVED_CACHE_SIZE });
  /**
   * Query text → its corrected text ('' for none), the most recent RESOLVED_CACHE_SIZE: a misspelled query comes
   * back with other filters, sorts and pages, and finding the closest terms reads every term of a first letter.
   */
  private readonly corrections = new LRUCache<string, string>({ max: RESOLVED_CACHE_SIZE });

  constructor(index: KeywordIndexData) {
    this.index = index;
    const n = index.count;
    this.score = new Float32Array(n);
    this.hits = new Uint8Array(n);
    this.phrases = new Uint8Array(n);
    this.wordScore = new Float32Array(n);
    this.candidates = new Uint32Array(n);
    this.seen = new StampSet(n);
    this.wordSeen = new StampSet(n);
    this.marks = new Uint32Array(Math.ceil(n / 32));
    this.allMarks = new Uint32Array(this.marks.length);
    this.top = new TopDocs(n);
  }

  /** Term id, or -1 when no listing has the term. */
  termId(term: string): number {
    return this.index.terms.indexOf(term);
  }

  /**
   * Ids of the terms starting with `prefix`: the most frequent PREFIX_MAX_TERMS of them, by frequency then id.
   * A short prefix stands for hundreds of terms; selecting the most frequent with a bounded heap rather than
   * sorting them all makes the expansion cheaper (bench/records/2026-11-24-keyword-longtail.md), with the same
   * terms chosen.
   */
  prefixTerms(prefix: string): number[] {
    const [from, to] = this.index.terms.prefixRange(prefix);
    const found: number[] = [];
    if (to - from <= PREFIX_MAX_TERMS) {
      for (let t = from; t < to; t++) found.push(t);
      return found;
    }
    // One numeric key per term: fewer listings first, then the lower id (t - from < 2^22 as terms < 4M).
    const { offsets, count } = this.index;
    const keys = new Float64Array(to - from);
    for (let t = from; t < to; t++) keys[t - from] = (count - (offsets[t + 1]! - offsets[t]!)) * TERM_SPAN + (t - from);
    for (const key of smallestK(keys, keys.length, PREFIX_MAX_TERMS)) found.push(from + (key % TERM_SPAN));
    return found;
  }

  /**
   * The query with each word that no listing holds (no term, nor a completion of the last word) replaced by the
   * closest term of the index (spelling.ts), its words separated by spaces; undefined when no word was replaced.
   */
  correctedText(query: string): string | undefined {
    let corrected = this.corrections.get(query);
    if (corrected === undefined) this.corrections.set(query, (corrected = this.correct(query) ?? ''));
    return corrected === '' ? undefined : corrected;
  }

  private correct(query: string): string | undefined {
    const corrections = new Map<string, string>();
    for (const word of this.resolve(query).words) {
      if (word.terms.length > 0) continue;
      const term = closestTerm(this.index.terms, (t) => this.listings(t), word.token.surface, word.token.term);
      if (term >= 0) corrections.set(word.token.surface, this.index.terms.at(term));
    }
    if (corrections.size === 0) return undefined;
    // A compound keeps its parts together, so that "fornt-end" is searched as "front-end", which also matches
    // "frontend", and not as the two words "front end".
    return compounds(query)
      .map((compound) =>
        parts(compound)
          .map((part) => corrections.get(part) ?? part)
          .join(joinsParts(compound) ? '-' : ' '),
      )
      .join(' ');
  }

  /** Listings holding a term: the length of its list. */
  private listings(term: number): number {
    return this.index.offsets[term + 1]! - this.index.offsets[term]!;
  }

  /** The query's words as terms of the index (remembered for the most recent RESOLVED_CACHE_SIZE texts). */
  resolve(query: string): ResolvedQuery {
    const kept = this.resolved.get(query);
    if (kept) return kept;
    const resolved = this.resolveWords(query);
    this.resolved.set(query, resolved);
    return resolved;
  }

  private resolveWords(query: string): ResolvedQuery {
    const { count } = this.index;
    const { tokens, phrases } = parseQuery(query);
    // A part of a compound also matches the compound joined ("front-end": front or frontend, and end or
    // frontend, so listings writing "frontend" match too); how many of the query's words share each joined form.
    const sharing = new Map<string, number>();
    for (const token of tokens) if (token.joined !== undefined) sharing.set(token.joined, (sharing.get(token.joined) ?? 0) + 1);
    const words = tokens.map((token, i): QueryWord => {
      const terms: number[] = [];
      const factors: number[] = [];
      const whole = this.termId(token.term);
      if (whole >= 0) {
        terms.push(whole);
        factors.push(1);
      }
      const joined = token.joined === undefined ? -1 : this.termId(token.joined);
      if (i === tokens.length - 1 && token.surface.length >= PREFIX_MIN_LENGTH) {
        for (const t of this.prefixTerms(token.surface)) {
          if (t !== whole && t !== joined) terms.push(t);
        }
      }
      let cost = 0;
      for (const t of terms) cost += this.listings(t);
      // A prefix match is worth the prefix as one word: its rarity is that of all the terms it stands for
      // (idf of their summed frequency), not the rarity of one long completion ("skills" → "skillselion").
      const prefixIdf = idf(count, Math.min(count, cost));
      for (let k = factors.length; k < terms.length; k++) {
        const t = terms[k]!;
        factors.push((PREFIX_FACTOR * prefixIdf) / idf(count, this.listings(t)));
      }
      if (joined >= 0 && joined !== whole) {
        // The word's share of the joined form, or more when the part is rarer than the joined form: "plug-in"
        // means "plugin", a common word, and must not rank below the listings that only write "plugs".
        const share = 1 / sharing.get(token.joined!)!;
        terms.push(joined);
        factors.push(whole >= 0 ? Math.max(share, idf(count, this.listings(whole)) / idf(count, this.listings(joined))) : share);
        cost += this.listings(joined);
      }
      return { token, terms, factors, cost, blocks: terms.map((t) => this.firstBlock(t)) };
    });
    const pairs: number[] = [];
    for (const phrase of new Set(phrases)) {
      const t = this.termId(phrase);
      if (t >= 0) pairs.push(t);
    }
    return { words, nameKey: hash32(nameKey(normalize(query))), pairs };
  }

  private firstBlock(term: number): number {
    const { blockTerms, blockStarts } = this.index;
    const at = lowerBound(blockTerms, 0, blockTerms.length, term);
    return blockTerms[at] === term ? blockStarts[at]! : -1;
  }

  /**
   * The documents `admit` accepts among those holding one word (any of its terms), each counted once; they stay
   * marked for isMarked until the next call. `filterBits`, when given, makes the same filter as bits (null: no
   * filter; undefined: not expressible so): a common word then keeps its documents as bits (WORD_BITS_CACHED
   * most recent) and is counted by intersecting them, without reading its lists again.
   */
  countWord(word: QueryWord, admit: (doc: number) => boolean, filterBits?: () => Uint32Array | null | undefined): number {
    const { offsets, docs } = this.index;
    const marks = this.marks;
    const admitted = filterBits && word.cost >= this.index.count / WORD_BITS_SHARE ? filterBits() : undefined;
    if (admitted !== undefined) {
      marks.set(this.wordBits(word));
      let count = 0;
      for (let i = 0; i < marks.length; i++) count += bitCount(admitted ? marks[i]! & admitted[i]! : marks[i]!);
      return count;
    }
    marks.fill(0);
    let count = 0;
    for (const term of word.terms) {
      const end = offsets[term + 1]!;
      for (let p = offsets[term]!; p < end; p++) {
        const doc = docs[p]!;
        const bit = 1 << (doc & 31);
        if ((marks[doc >>> 5]! & bit) !== 0) continue;
        marks[doc >>> 5]! |= bit;
        if (admit(doc)) count++;
      }
    }
    return count;
  }

  /**
   * The documents holding every word of a query within a filter (`admitted` as bits, null for none), as bits in
   * a scratch array valid until the next call, and their count. For queries whose every word is common
   * (see ALL_WORDS_SHARE): their bits are kept (WORD_BITS_CACHED most recent), so a repeated word reads no list.
   */
  matchedAll(query: ResolvedQuery, admitted: Uint32Array | null): { bits: Uint32Array; count: number } {
    const bits = this.allMarks;
    bits.set(admitted ?? this.wordBits(query.words[0]!));
    for (const word of query.words) {
      const other = this.wordBits(word);
      for (let i = 0; i < bits.length; i++) bits[i]! &= other[i]!;
    }
    let count = 0;
    for (let i = 0; i < bits.length; i++) count += bitCount(bits[i]!);
    return { bits, count };
  }

  /**
   * What a document's score would be after matchAll (the words by cost, each word's best term, accumulated in
   * float32 exactly as matchAll's add() does, so that keys and ties come out the same), looked up by binary
   * search; `most[w][k]` is the largest share term k of word w can give, which skips the lists that cannot raise
   * a word's share. The document must hold every word.
   */
  allWordsScore(doc: number, words: readonly QueryWord[], most: readonly (readonly number[])[]): number {
    const { offsets, docs, impacts } = this.index;
    let score = 0;
    for (let w = 0; w < words.length; w++) {
      const word = words[w]!;
      let share = -1;
      for (let k = 0; k < word.terms.length; k++) {
        if (share >= 0 && most[w]![k]! <= share) continue;
        const term = word.terms[k]!;
        const end = offsets[term + 1]!;
        const lo = lowerBound(docs, offsets[term]!, end, doc);
        if (lo === end || docs[lo] !== doc) continue;
        const impact = impacts[lo]! * word.factors[k]!;
        if (share < 0) {
          share = Math.fround(impact);
          score = Math.fround(score + impact);
        } else if (impact > share) {
          score = Math.fround(score + (impact - share));
          share = Math.fround(impact);
        }
      }
    }
    return score;
  }

  /** Adjacent query-word pairs a document has joined in its name or description (as addPhrases counts them). */
  phrasesOf(doc: number, pairs: readonly number[]): number {
    const { offsets, docs, fields } = this.index;
    let phrases = 0;
    for (const term of pairs) {
      const lo = lowerBound(docs, offsets[term]!, offsets[term + 1]!, doc);
      if (lo < offsets[term + 1]! && docs[lo] === doc && (fields[lo]! & PHRASE_FIELDS) !== 0) phrases++;
    }
    return phrases;
  }

  /** The largest share each term of a word can give (its list's largest impact times the term's factor). */
  termShares(word: QueryWord): number[] {
    return word.terms.map((term, k) => this.maxImpact(term) * word.factors[k]!);
  }

  /** The documents of a word's terms as bits, made once while it stays among the most recently used. */
  private wordBits(word: QueryWord): Uint32Array {
    const key = word.terms.join(' ');
    let bits = this.commonWords.get(key);
    if (!bits) {
      const { offsets, docs } = this.index;
      bits = this.spareBits.pop()?.fill(0) ?? new Uint32Array(this.marks.length);
      for (const term of word.terms) {
        for (let p = offsets[term]!; p < offsets[term + 1]!; p++) bits[docs[p]! >>> 5]! |= 1 << (docs[p]! & 31);
      }
      this.commonWords.set(key, bits);
    }
    return bits;
  }

  /** Whether the latest countWord saw `doc`. */
  isMarked(doc: number): boolean {
    return (this.marks[doc >>> 5]! & (1 << (doc & 31))) !== 0;
  }

  /** Calls `visit` once for each document of the latest countWord's word that `admit` accepts. */
  eachMarked(word: QueryWord, admit: (doc: number) => boolean, visit: (doc: number) => void): void {
    const { offsets, docs } = this.index;
    const marks = this.marks;
    for (const term of word.terms) {
      const end = offsets[term + 1]!;
      for (let p = offsets[term]!; p < end; p++) {
        const doc = docs[p]!;
        const bit = 1 << (doc & 31);
        if ((marks[doc >>> 5]! & bit) === 0) continue;
        // Unmarking makes each document visited once.
        marks[doc >>> 5]! &= ~bit;
        if (admit(doc)) visit(doc);
      }
    }
  }

  /**
   * The `k` best documents `admit` accepts among those holding one word, smallest key first, a document counting
   * for its best term. Short lists are read whole; the blocks of long lists are read best bound first, and once a
   * block's bound cannot beat the k-th best so far neither can any block after it: a common word costs its best
   * blocks rather than its every posting. A query of several common words comes here too, as its cheapest word,
   * `admit` its full matches and a ranking that scores every word (QueryEngine).
   */
  topOfWord(word: QueryWord, nameKey: number, admit: (doc: number) => boolean, k: number, ranking: WordRanking): number[] {
    const { offsets, blockImpacts, blockPopularity, blockScores } = this.index;
    const top = this.top;
    top.reset(k);
    const nameBonus = !this.offerNamed(word, nameKey, admit, ranking);
    let scored = 0;
    let blocks = 0;
    for (let i = 0; i < word.terms.length; i++) {
      const term = word.terms[i]!;
      const first = word.blocks[i]!;
      if (first < 0) {
        scored += this.scoreRange(offsets[term]!, offsets[term + 1]!, word.factors[i]!, admit, ranking, nameBonus);
        continue;
      }
      const factor = word.factors[i]!;
      const start = offsets[term]!;
      const count = Math.ceil((offsets[term + 1]! - start) / BLOCK_SIZE);
      if (this.blockBounds.length < blocks + count) this.growBlocks(blocks + count);
      for (let b = 0; b < count; b++, blocks++) {
        const block = first + b;
        this.blockBounds[blocks] = ranking.bound(
          Math.fround(blockImpacts[block]! * factor),
          blockPopularity[block]!,
          factor <= 1 ? blockScores[block]! : Infinity,
          nameBonus,
        );
        this.blockTerm[blocks] = i;
        this.blockFrom[blocks] = start + b * BLOCK_SIZE;
        this.blockOrder[blocks] = blocks;
      }
    }
    // Best bound first, taken off a heap: a common word has thousands of blocks and reads a few dozen of them,
    // so ordering them all (a sort) cost more than reading them.
    const bounds = this.blockBounds;
    const heap = this.blockOrder;
    for (let at = (blocks >> 1) - 1; at >= 0; at--) siftDownBy(heap, blocks, at, bounds);
    for (let size = blocks; size > 0;) {
      const at = heap[0]!;
      if (bounds[at]! > top.limit) break;
      heap[0] = heap[--size]!;
      siftDownBy(heap, size, 0, bounds);
      const i = this.blockTerm[at]!;
      const from = this.blockFrom[at]!;
      scored += this.scoreRange(from, Math.min(from + BLOCK_SIZE, offsets[word.terms[i]! + 1]!), word.factors[i]!, admit, ranking, nameBonus);
    }
    this.scored = scored;
    return top.sorted();
  }

  /**
   * Offers the listings whose name key is the query's (the exact-name bonus) at their best term of the word, so
   * that block bounds can leave the bonus out; false when there are more than NAMED_MAX (none offered). Each is
   * looked up in the word's lists by binary search, the lists whose best impact could still raise its score only.
   */
  private offerNamed(word: QueryWord, nameKey: number, admit: (doc: number) => boolean, ranking: WordRanking): boolean {
    const { nameKeys, nameOrder, offsets, docs, impacts } = this.index;
    const first = (key: number) => partitionPoint(0, nameOrder.length, (at) => nameKeys[nameOrder[at]!]! < key);
    const from = first(nameKey);
    const to = nameKey === 0xffffffff ? nameOrder.length : first(nameKey + 1);
    if (to - from > NAMED_MAX) return false;
    if (to === from) return true;
    // The word's lists by their best possible share (largest impact times the term's factor), best first.
    const best = word.terms.map((term, i) => ({ term, factor: word.factors[i]!, max: Math.fround(this.maxImpact(term) * word.factors[i]!) }));
    best.sort((a, b) => b.max - a.max);
    for (let at = from; at < to; at++) {
      const doc = nameOrder[at]!;
      if (!admit(doc)) continue;
      let impact = -1;
      for (const { term, factor, max } of best) {
        if (max <= impact) break;
        const lo = lowerBound(docs, offsets[term]!, offsets[term + 1]!, doc);
        if (lo < offsets[term + 1]! && docs[lo] === doc) impact = Math.max(impact, Math.fround(impacts[lo]! * factor));
      }
      if (impact >= 0) this.top.offer(doc, ranking.key(doc, impact, Infinity, false));
    }
    return true;
  }

  /** The largest impact in a term's list: from its block maxima when it has them. */
  private maxImpact(term: number): number {
    const { offsets, impacts, blockImpacts } = this.index;
    const first = this.firstBlock(term);
    let max = 0;
    if (first >= 0) {
      const end = first + Math.ceil((offsets[term + 1]! - offsets[term]!) / BLOCK_SIZE);
      for (let b = first; b < end; b++) max = Math.max(max, blockImpacts[b]!);
    } else {
      for (let p = offsets[term]!; p < offsets[term + 1]!; p++) max = Math.max(max, impacts[p]!);
    }
    return max;
  }

  /** Offers postings from..to of one list to the top; returns how many it read. */
  private scoreRange(from: number, to: number, factor: number, admit: (doc: number) => boolean, ranking: WordRanking, nameBonus: boolean): number {
    const { docs, impacts } = this.index;
    const top = this.top;
    for (let p = from; p < to; p++) {
      const doc = docs[p]!;
      if (!admit(doc)) continue;
      const limit = top.limit;
      const key = ranking.key(doc, Math.fround(impacts[p]! * factor), limit, nameBonus);
      if (key < limit) top.offer(doc, key);
    }
    return to - from;
  }

  private growBlocks(size: number): void {
    const capacity = Math.max(size, 2 * this.blockBounds.length);
    const grown = <T extends Float64Array | Uint8Array | Uint32Array>(old: T, next: T): T => (next.set(old as never), next);
    this.blockBounds = grown(this.blockBounds, new Float64Array(capacity));
    this.blockTerm = grown(this.blockTerm, new Uint8Array(capacity));
    this.blockFrom = grown(this.blockFrom, new Uint32Array(capacity));
    this.blockOrder = grown(this.blockOrder, new Uint32Array(capacity));
  }

  /**
   * Documents matching every word (mode 'all') or any word (mode 'any') among those `admit` accepts. In mode
   * 'all', when fewer than PARTIAL_BELOW documents match every word, the documents matching any word, flagged
   * partial (the caller ranks full matches first).
   */
  match(query: ResolvedQuery, admit: (doc: number) => boolean, mode: 'all' | 'any'): MatchResult {
    if (query.words.length === 0) return { docs: this.candidates, count: 0, partial: false };
    if (mode === 'all') {
      const count = query.words.some((word) => word.terms.length === 0) ? 0 : this.matchAll(query, admit);
      if (count >= PARTIAL_BELOW || query.words.length === 1) return { docs: this.candidates, count, partial: false };
      const any = this.matchAny(query, admit);
      return { docs: this.candidates, count: any, partial: any > count };
    }
    return { docs: this.candidates, count: this.matchAny(query, admit), partial: false };
  }

  private matchAny(query: ResolvedQuery, admit: (doc: number) => boolean): number {
    this.seen.next();
    let count = 0;
    for (const word of query.words) {
      this.wordSeen.next();
      for (let k = 0; k < word.terms.length; k++) count = this.walk(word.terms[k]!, word.factors[k]!, admit, count, -1);
    }
    this.addPhrases(query, count);
    return count;
  }

  private matchAll(query: ResolvedQuery, admit: (doc: number) => boolean): number {
    const words = [...query.words].sort((a, b) => a.cost - b.cost);
    const { offsets, docs, impacts } = this.index;
    this.seen.next();
    let count = 0;
    words.forEach((word, w) => {
      this.wordSeen.next();
      for (let k = 0; k < word.terms.length; k++) {
        const term = word.terms[k]!;
        const factor = word.factors[k]!;
        if (w === 0) {
          count = this.walk(term, factor, admit, count, -1);
          continue;
        }
        const start = offsets[term]!;
        const end = offsets[term + 1]!;
        // Few candidates against a long list: look each candidate up (binary search) instead of walking it.
        if (count * Math.log2(end - start + 2) * 4 < end - start) {
          for (let c = 0; c < count; c++) {
            const doc = this.candidates[c]!;
            if (this.hits[doc]! < w) continue;
            const lo = lowerBound(docs, start, end, doc);
            if (lo < end && docs[lo] === doc) this.add(doc, impacts[lo]! * factor);
          }
        } else {
          this.walk(term, factor, admit, count, w);
        }
      }
      // Keep only the documents that matched this word too.
      let kept = 0;
      for (let c = 0; c < count; c++) {
        const doc = this.candidates[c]!;
        if (this.hits[doc] === w + 1) this.candidates[kept++] = doc;
      }
      count = kept;
    });
    this.addPhrases(query, count);
    return count;
  }

  /**
   * Adds one posting list. With `onlyMatched` < 0 a document not yet seen becomes a candidate (if admitted);
   * otherwise only candidates that matched the `onlyMatched` words before this one count.
   */
  private walk(term: number, factor: number, admit: (doc: number) => boolean, count: number, onlyMatched: number): number {
    const { offsets, docs, impacts } = this.index;
    const end = offsets[term + 1]!;
    for (let p = offsets[term]!; p < end; p++) {
      const doc = docs[p]!;
      if (onlyMatched >= 0) {
        if (!this.seen.has(doc) || this.hits[doc]! < onlyMatched) continue;
      } else if (!this.seen.has(doc)) {
        if (!admit(doc)) continue;
        this.seen.mark(doc);
        this.score[doc] = 0;
        this.hits[doc] = 0;
        this.phrases[doc] = 0;
        this.candidates[count++] = doc;
      }
      this.add(doc, impacts[p]! * factor);
    }
    return count;
  }

  /** Counts a word's impact for a document once: its best-matching term (whole word or a prefix). */
  private add(doc: number, impact: number): void {
    if (this.wordSeen.mark(doc)) {
      this.wordScore[doc] = impact;
      this.score[doc]! += impact;
      this.hits[doc]!++;
    } else if (impact > this.wordScore[doc]!) {
      this.score[doc]! += impact - this.wordScore[doc]!;
      this.wordScore[doc] = impact;
    }
  }

  private addPhrases(query: ResolvedQuery, count: number): void {
    if (query.pairs.length === 0 || count === 0) return;
    const { offsets, docs, fields } = this.index;
    for (const term of query.pairs) {
      const end = offsets[term + 1]!;
      for (let p = offsets[term]!; p < end; p++) {
        if ((fields[p]! & PHRASE_FIELDS) !== 0 && this.seen.has(docs[p]!)) this.phrases[docs[p]!]!++;
      }
    }
  }
}

/** Restores a min-heap of indices ordered by `keys` below position `at`. */
function siftDownBy(heap: Uint32Array, size: number, from: number, keys: Float64Array): void {
  let at = from;
  const item = heap[at]!;
  const key = keys[item]!;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && keys[heap[child + 1]!]! < keys[heap[child]!]!) child++;
    if (keys[heap[child]!]! >= key) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = item;
}

/** Set bits of a 32-bit word. */
function bitCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
