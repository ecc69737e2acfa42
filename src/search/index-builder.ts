// Builds the keyword index at build time: postings per term in document order with BM25F impacts already
// computed, so the shim only adds numbers at query time.
import { TermTable } from './term-table.ts';
import { SEARCH_FIELDS, idf, relevanceScore, termImpact, type SearchField } from '../domain/listing/ranking.ts';
import { fieldLength, hash32, indexTerms, memoStem, nameJoins, nameKey, wordPairs } from './tokenizer.ts';
import { BLOCK_SIZE, type KeywordIndexData } from './index-file.ts';

/** The listing fields keyword search reads. */
export interface SearchableListing {
  name: string;
  repo: string;
  author: string;
  description: string;
  tags?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
}

/**
 * The text each index field holds for a listing. A listing's categories count with its description, the lowest
 * field weight, below the name, repository, author and tags a publisher chose: a category is our classification, so
 * it finds a listing whose own words do not say what it is for ("browser automation" finds Playwright MCP) without
 * outranking listings whose own words do. Written as its slug ("browser-automation"), a category is a compound: its
 * parts and its joined form are terms, so a query that names the category earns the phrase bonus in its listings.
 */
export function fieldTexts(listing: SearchableListing): Record<SearchField, string> {
  const [owner = '', repoName = ''] = listing.repo.split('/');
  const ident = owner === listing.author ? `${owner} ${repoName}` : `${owner} ${repoName} ${listing.author}`;
  const tags = (listing.tags ?? []).join(' ');
  const categories = listing.categories ?? [];
  const description = categories.length > 0 ? `${listing.description}\n${categories.join('.\n')}.` : listing.description;
  return { name: listing.name, ident, tags, description };
}

/**
 * What the keyword index takes from one listing's own texts: each term of its fields with its per-field frequencies
 * packed one byte a field (SEARCH_FIELDS order, capped at 255), the fields' lengths and the hash of its name key.
 */
export interface ListingTerms {
  terms: readonly string[];
  packed: ArrayLike<number>;
  lengths: readonly number[];
  nameKey: number;
}

/** Every document's ListingTerms of one build (KeywordIndexBuilder.keptTerms). */
export interface KeptTerms {
  /** In code-unit order. */
  terms: string[];
  /** Document d's terms are termIds/packed[docStarts[d], docStarts[d + 1]). */
  docStarts: Uint32Array;
  termIds: Uint32Array;
  packed: Uint32Array;
  /** Per field, per document. */
  lengths: Uint32Array[];
  nameKeys: Uint32Array;
}

/** A Uint32 array that grows by doubling. */
class Growable {
  data = new Uint32Array(1 << 16);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

const FIELDS = SEARCH_FIELDS.length;

const DESCRIPTION = SEARCH_FIELDS.indexOf('description');

export class KeywordIndexBuilder {
  /** The joined words of every listing's name (addName): the word pairs of descriptions indexed joined. */
  private readonly nameJoins = new Set<string>();
  private readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  private readonly entryTerm = new Growable();
  private readonly entryDoc = new Growable();
  /** Per-field term frequencies, one byte each (capped at 255), packed in field order. */
  private readonly entryTf = new Growable();
  private readonly lengths: Growable[] = SEARCH_FIELDS.map(() => new Growable());
  private readonly nameKeys = new Growable();
  private count = 0;
  private readonly stem = memoStem();
  /** Per document, the terms addTerms took (word pairs aside), as builder term ids: with `keepTerms` only. */
  private readonly kept: { starts: Growable; terms: Growable; packed: Growable } | undefined;
  /** The terms in code-unit order and each builder term id's place among them, once finish() has run. */
  private sortedTerms: string[] | undefined;
  private sortedIds: Uint32Array | undefined;

  constructor(options: { keepTerms?: boolean } = {}) {
    this.kept = options.keepTerms ? { starts: new Growable(), terms: new Growable(), packed: new Growable() } : undefined;
  }

  /**
   * A listing's name, before any listing is added (the build's first pass). A description's neighbouring words are
   * also indexed joined, as a description term ("code review" → codereview, tokenizer.wordPairs), when some listing's
   * name writes the joined word in parts ("requesting-code-review"): a query's words then earn the phrase bonus there
   * too, and the compound ("code-review", "codereview") finds them. Other pairs are left out: no name says they are one
   * word, and all of them would nearly double the postings. Pairs a name holds only as one word of its own ("set up"
   * and "setup-wizard") are left out too: counting them lowered the judged nl requests (npm run eval, dev `q` nl
   * 0.198 → 0.196).
   */
  addName(name: string): void {
    if (this.count > 0) throw new Error('names come before the listings');
    for (const term of nameJoins(name, this.stem)) this.nameJoins.add(term);
  }

  /** Adds the next document; documents are numbered 0, 1, 2, ... in the order they are added. */
  add(listing: SearchableListing): void {
    this.addTerms(this.listingTerms(listing), fieldTexts(listing).description);
  }

  /**
   * What the index takes from one listing's own texts, apart from the description's word pairs (which depend on
   * every listing's name): a build keeps these per listing, so the next one reuses them where the texts did not change.
   */
  listingTerms(listing: SearchableListing, texts = fieldTexts(listing)): ListingTerms {
    const tfs = new Map<string, number>();
    const lengths = SEARCH_FIELDS.map((field, f) => {
      const text = texts[field];
      const shift = 8 * f;
      for (const term of indexTerms(text, field === 'name', this.stem)) {
        const packed = tfs.get(term) ?? 0;
        if (((packed >>> shift) & 0xff) < 0xff) tfs.set(term, packed + (1 << shift));
      }
      return Math.min(fieldLength(text), 0xffff);
    });
    return { terms: [...tfs.keys()], packed: [...tfs.values()], lengths, nameKey: hash32(nameKey(listing.name)) };
  }

  /** Adds the next document from its terms (listingTerms(), or a previous build's) and its description (for the word pairs). */
  addTerms(listing: ListingTerms, description: string): void {
    const doc = this.count++;
    const tfs = new Map<number, number>();
    for (let i = 0; i < listing.terms.length; i++) tfs.set(this.termId(listing.terms[i]!), listing.packed[i]!);
    if (this.kept) {
      this.kept.starts.push(this.kept.terms.length);
      for (const [id, packed] of tfs) {
        this.kept.terms.push(id);
        this.kept.packed.push(packed >>> 0);
      }
    }
    if (this.nameJoins.size > 0) {
      const shift = 8 * DESCRIPTION;
      for (const term of wordPairs(description, this.stem)) {
        if (!this.nameJoins.has(term)) continue;
        const id = this.termId(term);
        const packed = tfs.get(id) ?? 0;
        if (((packed >>> shift) & 0xff) < 0xff) tfs.set(id, packed + (1 << shift));
      }
    }
    for (const [id, packed] of tfs) {
      this.entryTerm.push(id);
      this.entryDoc.push(doc);
      this.entryTf.push(packed >>> 0);
    }
    listing.lengths.forEach((length, f) => this.lengths[f]!.push(length));
    this.nameKeys.push(listing.nameKey);
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  /**
   * Every document's terms as addTerms took them, once finish() has run: the terms in code-unit order and, per
   * document, indexes into them. Only for a builder made with `keepTerms`.
   */
  keptTerms(): KeptTerms {
    if (!this.kept || !this.sortedTerms) throw new Error('keptTerms() needs a builder made with keepTerms, after finish()');
    const { starts, terms, packed } = this.kept;
    const newId = this.sortedIds!;
    const ids = new Uint32Array(terms.length);
    for (let i = 0; i < terms.length; i++) ids[i] = newId[terms.data[i]!]!;
    const docStarts = new Uint32Array(this.count + 1);
    docStarts.set(starts.data.subarray(0, this.count));
    docStarts[this.count] = terms.length;
    return {
      terms: this.sortedTerms,
      docStarts,
      termIds: ids,
      packed: packed.data.slice(0, packed.length),
      lengths: this.lengths.map((lengths) => lengths.data.slice(0, this.count)),
      nameKeys: this.nameKeys.data.slice(0, this.count),
    };
  }

  /**
   * The index. `popularity` (each document's popularity prior, as the shim ranks with it) bounds the blocks'
   * scores; without it a block's bound takes the prior's maximum, which is safe but skips less.
   */
  finish(popularity?: ArrayLike<number>): KeywordIndexData {
    const count = this.count;
    const termCount = this.terms.length;
    const avg = this.lengths.map((lengths) => {
      let sum = 0;
      for (let i = 0; i < count; i++) sum += lengths.data[i]!;
      return count ? Math.max(sum / count, 1) : 1;
    });
    // Terms in code-unit order, so the shim finds a term and a prefix range by binary search.
    // The default sort compares strings by code unit, without a call per comparison.
    const sorted = [...this.terms].sort();
    const newId = new Uint32Array(termCount);
    sorted.forEach((term, id) => (newId[this.termIds.get(term)!] = id));
    if (this.kept) {
      this.sortedTerms = sorted;
      this.sortedIds = newId;
    }
    const entries = this.entryTerm.length;
    const offsets = new Uint32Array(termCount + 1);
    for (let e = 0; e < entries; e++) offsets[newId[this.entryTerm.data[e]!]! + 1]!++;
    for (let t = 0; t < termCount; t++) offsets[t + 1]! += offsets[t]!;
    // Entries come in document order, so a stable counting sort by term leaves each posting list ascending.
    const cursor = offsets.slice(0, termCount);
    const docs = new Uint32Array(entries);
    const impacts = new Float32Array(entries);
    const fields = new Uint8Array(entries);
    const tf = new Array<number>(FIELDS).fill(0);
    const ratio = new Array<number>(FIELDS).fill(0);
    for (let e = 0; e < entries; e++) {
      const term = newId[this.entryTerm.data[e]!]!;
      const doc = this.entryDoc.data[e]!;
      const packed = this.entryTf.data[e]!;
      let mask = 0;
      for (let f = 0; f < FIELDS; f++) {
        tf[f] = (packed >>> (8 * f)) & 0xff;
        if (tf[f]! > 0) mask |= 1 << f;
        ratio[f] = this.lengths[f]!.data[doc]! / avg[f]!;
      }
      const at = cursor[term]!++;
      docs[at] = doc;
      fields[at] = mask;
      impacts[at] = termImpact(idf(count, offsets[term + 1]! - offsets[term]!), tf, ratio);
    }
    const nameKeys = this.nameKeys.data.slice(0, count);
    return {
      count,
      terms: TermTable.of(sorted),
      offsets,
      docs,
      impacts,
      fields,
      nameKeys,
      nameOrder: Uint32Array.from({ length: count }, (_, doc) => doc).sort((a, b) => nameKeys[a]! - nameKeys[b]! || a - b),
      ...blockMaxima(offsets, docs, impacts, popularity),
    };
  }
}

/**
 * Per block of BLOCK_SIZE postings of every list longer than that: its largest impact, its largest popularity and
 * its largest impact-plus-popularity score (the last is the tighter bound, as one listing rarely has both maxima).
 */
function blockMaxima(offsets: Uint32Array, docs: Uint32Array, impacts: Float32Array, popularity: ArrayLike<number> | undefined) {
  const terms: number[] = [];
  const starts: number[] = [0];
  for (let t = 0; t + 1 < offsets.length; t++) {
    const length = offsets[t + 1]! - offsets[t]!;
    if (length <= BLOCK_SIZE) continue;
    terms.push(t);
    starts.push(starts.at(-1)! + Math.ceil(length / BLOCK_SIZE));
  }
  const blocks = starts.at(-1)!;
  const blockImpacts = new Float32Array(blocks);
  const blockPopularity = new Float32Array(blocks).fill(1);
  const blockScores = new Float32Array(blocks);
  terms.forEach((t, i) => {
    const end = offsets[t + 1]!;
    for (let b = starts[i]!, p = offsets[t]!; p < end; b++) {
      const blockEnd = Math.min(p + BLOCK_SIZE, end);
      let impact = 0;
      let prior = 0;
      let score = 0;
      for (; p < blockEnd; p++) {
        const docPrior = popularity ? popularity[docs[p]!]! : 1;
        impact = Math.max(impact, impacts[p]!);
        prior = Math.max(prior, docPrior);
        score = Math.max(score, relevanceScore(impacts[p]!, false, 0, docPrior));
      }
      blockImpacts[b] = impact;
      blockPopularity[b] = prior;
      blockScores[b] = score;
    }
  });
  return { blockTerms: Uint32Array.from(terms), blockStarts: Uint32Array.from(starts), blockImpacts, blockPopularity, blockScores };
}
