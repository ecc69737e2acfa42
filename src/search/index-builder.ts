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
 * packed one byte a field (SEARCH_FIELDS order, capped at 255), the fields' lengths, the hash of its name key, and
 * every word pair of its description in order (tokenizer.wordPairs), of which the index holds those some name joins.
 */
export interface ListingTerms {
  terms: readonly string[];
  packed: ArrayLike<number>;
  lengths: readonly number[];
  nameKey: number;
  pairs: readonly string[];
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
  /** The word pairs of the descriptions, in code-unit order. */
  pairs: string[];
  /** Document d's word pairs, in the order its description writes them, are pairIds[pairStarts[d], pairStarts[d + 1]). */
  pairStarts: Uint32Array;
  pairIds: Uint32Array;
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

/** Strings numbered in the order first seen. */
class Numbering {
  private readonly ids = new Map<string, number>();
  readonly list: string[] = [];
  id(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.list.length;
      this.ids.set(text, id);
      this.list.push(text);
    }
    return id;
  }
  /** The strings in code-unit order, and each id's place among them. */
  sorted(): { list: string[]; place: Uint32Array } {
    // The default sort compares strings by code unit, without a call per comparison.
    const list = [...this.list].sort();
    const place = new Uint32Array(list.length);
    list.forEach((text, i) => (place[this.ids.get(text)!] = i));
    return { list, place };
  }
}

/** Unknown yet, in the maps from a previous build's term and pair numbers to this builder's (KeywordIndexBuilder.addKept). */
const UNMAPPED = -2;
/** A previous build's word pair that no name of this build joins. */
const NOT_JOINED = -1;

const FIELDS = SEARCH_FIELDS.length;

const DESCRIPTION = SEARCH_FIELDS.indexOf('description');

export class KeywordIndexBuilder {
  /** The joined words of every listing's name (addName): the word pairs of descriptions indexed joined. */
  private readonly nameJoins = new Set<string>();
  private readonly terms = new Numbering();
  private readonly entryTerm = new Growable();
  private readonly entryDoc = new Growable();
  /** Per-field term frequencies, one byte each (capped at 255), packed in field order. */
  private readonly entryTf = new Growable();
  private readonly lengths: Growable[] = SEARCH_FIELDS.map(() => new Growable());
  private readonly nameKeys = new Growable();
  private count = 0;
  private readonly stem = memoStem();
  /**
   * Per document, with `keepTerms` only: the terms it was added with (word pairs aside), as builder term ids, and
   * its description's word pairs, numbered in `pairs`.
   */
  private readonly kept: { starts: Growable; terms: Growable; packed: Growable; pairStarts: Growable; pairIds: Growable; pairs: Numbering } | undefined;
  /** The terms in code-unit order and each builder term id's place among them, once finish() has run. */
  private sortedTerms: string[] | undefined;
  private sortedIds: Uint32Array | undefined;
  /** A previous build's terms (addKept) and its term and pair numbers mapped to this builder's, as they are met. */
  private from: { terms: KeptTerms; term: Int32Array; pair: Int32Array; keptPair: Int32Array } | undefined;
  /** One document's terms and frequencies while it is added. */
  private readonly docTerms: number[] = [];
  private readonly docPacked: number[] = [];

  constructor(options: { keepTerms?: boolean } = {}) {
    this.kept = options.keepTerms
      ? { starts: new Growable(), terms: new Growable(), packed: new Growable(), pairStarts: new Growable(), pairIds: new Growable(), pairs: new Numbering() }
      : undefined;
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
    this.addTerms(this.listingTerms(listing));
  }

  /**
   * What the index takes from one listing's own texts: which of its description's word pairs it holds depends on
   * every listing's name, so a build keeps these per listing and the next one reuses them where the texts did not change.
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
    return {
      terms: [...tfs.keys()],
      packed: [...tfs.values()],
      lengths,
      nameKey: hash32(nameKey(listing.name)),
      pairs: wordPairs(texts.description, this.stem),
    };
  }

  /** Adds the next document from its terms (listingTerms(), or a previous build's). */
  addTerms(listing: ListingTerms): void {
    const { docTerms, docPacked } = this;
    for (let i = 0; i < listing.terms.length; i++) {
      docTerms.push(this.terms.id(listing.terms[i]!));
      docPacked.push(listing.packed[i]!);
    }
    this.keepDoc();
    const pairs = this.kept?.pairs;
    for (const pair of listing.pairs) {
      if (pairs) this.kept!.pairIds.push(pairs.id(pair));
      if (this.nameJoins.has(pair)) this.addPair(this.terms.id(pair));
    }
    this.endDoc(listing.lengths, listing.nameKey);
  }

  /**
   * Adds the next document as document `doc` of a previous build's `terms` (a term cache's) holds it: the same as
   * addTerms() with that document's ListingTerms, without making them; each of the previous build's terms and pairs is
   * looked up once, however many documents hold it.
   */
  addKept(terms: KeptTerms, doc: number): void {
    if (this.from?.terms !== terms) {
      this.from = {
        terms,
        term: new Int32Array(terms.terms.length).fill(UNMAPPED),
        pair: new Int32Array(terms.pairs.length).fill(UNMAPPED),
        keptPair: new Int32Array(terms.pairs.length).fill(UNMAPPED),
      };
    }
    const from = this.from;
    const { docTerms, docPacked } = this;
    for (let i = terms.docStarts[doc]!, end = terms.docStarts[doc + 1]!; i < end; i++) {
      const t = terms.termIds[i]!;
      let id = from.term[t]!;
      if (id === UNMAPPED) id = from.term[t] = this.terms.id(terms.terms[t]!);
      docTerms.push(id);
      docPacked.push(terms.packed[i]!);
    }
    this.keepDoc();
    const pairs = this.kept?.pairs;
    for (let i = terms.pairStarts[doc]!, end = terms.pairStarts[doc + 1]!; i < end; i++) {
      const p = terms.pairIds[i]!;
      if (pairs) {
        let kept = from.keptPair[p]!;
        if (kept === UNMAPPED) kept = from.keptPair[p] = pairs.id(terms.pairs[p]!);
        this.kept!.pairIds.push(kept);
      }
      let id = from.pair[p]!;
      if (id === UNMAPPED) id = from.pair[p] = this.nameJoins.has(terms.pairs[p]!) ? this.terms.id(terms.pairs[p]!) : NOT_JOINED;
      if (id !== NOT_JOINED) this.addPair(id);
    }
    this.endDoc(
      terms.lengths.map((lengths) => lengths[doc]!),
      terms.nameKeys[doc]!,
    );
  }

  /** Keeps the document's own terms (those added so far, before its word pairs), with `keepTerms`. */
  private keepDoc(): void {
    if (!this.kept) return;
    this.kept.starts.push(this.kept.terms.length);
    this.kept.pairStarts.push(this.kept.pairIds.length);
    for (let i = 0; i < this.docTerms.length; i++) {
      this.kept.terms.push(this.docTerms[i]!);
      this.kept.packed.push(this.docPacked[i]! >>> 0);
    }
  }

  /** One more occurrence of a word pair a name joins in the document's description. */
  private addPair(id: number): void {
    const shift = 8 * DESCRIPTION;
    // A document holds a few dozen terms: a scan finds the pair among them sooner than a map is made.
    const at = this.docTerms.indexOf(id);
    if (at < 0) {
      this.docTerms.push(id);
      this.docPacked.push(1 << shift);
    } else if (((this.docPacked[at]! >>> shift) & 0xff) < 0xff) this.docPacked[at]! += 1 << shift;
  }

  private endDoc(lengths: readonly number[], nameKey: number): void {
    const doc = this.count++;
    for (let i = 0; i < this.docTerms.length; i++) {
      this.entryTerm.push(this.docTerms[i]!);
      this.entryDoc.push(doc);
      this.entryTf.push(this.docPacked[i]! >>> 0);
    }
    this.docTerms.length = 0;
    this.docPacked.length = 0;
    lengths.forEach((length, f) => this.lengths[f]!.push(length));
    this.nameKeys.push(nameKey);
  }

  /**
   * Every document's terms as it was added with them, once finish() has run: the terms and the word pairs in code-unit
   * order and, per document, indexes into them. Only for a builder made with `keepTerms`.
   */
  keptTerms(): KeptTerms {
    if (!this.kept || !this.sortedTerms) throw new Error('keptTerms() needs a builder made with keepTerms, after finish()');
    const { starts, terms, packed, pairStarts, pairIds } = this.kept;
    const newId = this.sortedIds!;
    const ids = new Uint32Array(terms.length);
    for (let i = 0; i < terms.length; i++) ids[i] = newId[terms.data[i]!]!;
    const pairs = this.kept.pairs.sorted();
    const pairPlaces = new Uint32Array(pairIds.length);
    for (let i = 0; i < pairIds.length; i++) pairPlaces[i] = pairs.place[pairIds.data[i]!]!;
    const ends = (growable: Growable, last: number) => {
      const out = new Uint32Array(this.count + 1);
      out.set(growable.data.subarray(0, this.count));
      out[this.count] = last;
      return out;
    };
    return {
      terms: this.sortedTerms,
      docStarts: ends(starts, terms.length),
      termIds: ids,
      packed: packed.data.slice(0, packed.length),
      lengths: this.lengths.map((lengths) => lengths.data.slice(0, this.count)),
      nameKeys: this.nameKeys.data.slice(0, this.count),
      pairs: pairs.list,
      pairStarts: ends(pairStarts, pairIds.length),
      pairIds: pairPlaces,
    };
  }

  /**
   * The index. `popularity` (each document's popularity prior, as the shim ranks with it) bounds the blocks'
   * scores; without it a block's bound takes the prior's maximum, which is safe but skips less.
   */
  finish(popularity?: ArrayLike<number>): KeywordIndexData {
    const count = this.count;
    const termCount = this.terms.list.length;
    const avg = this.lengths.map((lengths) => {
      let sum = 0;
      for (let i = 0; i < count; i++) sum += lengths.data[i]!;
      return count ? Math.max(sum / count, 1) : 1;
    });
    // Terms in code-unit order, so the shim finds a term and a prefix range by binary search.
    const { list: sorted, place: newId } = this.terms.sorted();
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
