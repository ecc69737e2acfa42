// The filters of a listing search (types, category, owner, risk, updatedSince) compiled once per search, and the
// ways a strategy applies them: a predicate per listing, the filter as a bitset, or a count. Every strategy and
// filterDocs share these, so "nothing is filtered" is decided in one place (isUnfiltered).
import { LRUCache } from 'lru-cache';
import type { CatalogStore } from '../artifacts/runtime-store.ts';
import { typeCode } from '../domain/listing/listing-types.ts';
import { bitsetFor, hasBit, setBit, type Bitset } from './bitset.ts';

export interface Filter {
  typeMask: number;
  /** updatedSince in seconds (0: no date filter). */
  since: number;
  /** Posting lists every result must be in, smallest first. */
  lists: Uint32Array[];
}

/** The filter parameters of a search request. */
export interface FilterRequest {
  types?: readonly string[] | undefined;
  category?: string | undefined;
  owner?: string | undefined;
  /** Seconds since the epoch: only listings updated at or after it. */
  updatedSince?: number | undefined;
  /** Only audited listings of this audit level (the r:<level> posting list). */
  risk?: string | undefined;
}

export const ALL_TYPES = 0xff;

/**
 * Filter lists (categories, owners) kept as bitsets, the most recently used: a filter repeats across searches, and
 * testing a bit beats re-marking a long list in a stamp array for every search.
 */
const FILTER_BITS_CACHED = 16;

/** Whether the filter admits every listing. */
export function isUnfiltered(filter: Filter): boolean {
  return filter.lists.length === 0 && filter.typeMask === ALL_TYPES && filter.since === 0;
}

/** undefined when the filter can match nothing. */
export function compileFilter(store: CatalogStore, request: FilterRequest): Filter | undefined {
  let typeMask = ALL_TYPES;
  if (request.types) {
    typeMask = 0;
    for (const t of request.types) typeMask |= 1 << typeCode(t as never);
    if (typeMask === 0) return undefined;
  }
  const lists: Uint32Array[] = [];
  if (request.category) lists.push(store.posting(`c:${request.category}`));
  if (request.owner) lists.push(store.posting(`o:${request.owner.toLowerCase()}`));
  if (request.risk) lists.push(store.posting(`r:${request.risk}`));
  if (lists.some((list) => list.length === 0)) return undefined;
  lists.sort((a, b) => a.length - b.length);
  return { typeMask, lists, since: request.updatedSince ?? 0 };
}

/** A catalog's filters applied: the bitsets of its types and recent filter lists, kept across searches. */
export class FilterBits {
  private readonly store: CatalogStore;
  /** Filter list → its members as bits (FILTER_BITS_CACHED most recent). */
  private readonly listBits = new LRUCache<Uint32Array, Bitset>({ max: FILTER_BITS_CACHED });
  /** Per type code, its listings as bits (made on first use). */
  private readonly typeSets: (Bitset | undefined)[] = [];
  /** Scratch: the current filter as bits (admittedBits). */
  private readonly admitted: Bitset;
  /** Listings per type code: the total of a type-only filter without a pass over the catalog. */
  private readonly typeCounts = new Uint32Array(32);

  constructor(store: CatalogStore) {
    this.store = store;
    this.admitted = bitsetFor(store.count);
    const { type } = store.columns;
    for (let doc = 0; doc < store.count; doc++) this.typeCounts[type[doc]!]!++;
  }

  /**
   * The filter as bits, for counting a common word by intersection: null without a filter, undefined with a date
   * filter (tested per listing). Made per search from one bitset per type (made once each) and the lists' bits.
   */
  admittedBits(filter: Filter): Bitset | null | undefined {
    if (filter.since > 0) return undefined;
    if (isUnfiltered(filter)) return null;
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

  /** A predicate over the type mask, the update time and the posting lists (after the first, when the caller walks it). */
  predicate(filter: Filter, skipFirstList: boolean): (doc: number) => boolean {
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
    if (!b) return (doc) => ((mask >> type[doc]!) & 1) === 1 && hasBit(a, doc);
    return (doc) => ((mask >> type[doc]!) & 1) === 1 && hasBit(a, doc) && hasBit(b, doc);
  }

  /** Listings a filter admits: per-type counts alone, or one pass over its smallest posting list. */
  countAdmitted(filter: Filter): number {
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

  /** The documents a filter admits, ascending; undefined when nothing is filtered. */
  admittedDocs(filter: Filter): Uint32Array | undefined {
    if (isUnfiltered(filter)) return undefined;
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

  private typeBits(code: number): Bitset {
    let bits = this.typeSets[code];
    if (!bits) {
      const { type } = this.store.columns;
      bits = bitsetFor(this.store.count);
      for (let doc = 0; doc < this.store.count; doc++) if (type[doc] === code) setBit(bits, doc);
      this.typeSets[code] = bits;
    }
    return bits;
  }

  private bitsOf(list: Uint32Array): Bitset {
    let bits = this.listBits.get(list);
    if (!bits) {
      bits = bitsetFor(this.store.count);
      for (let i = 0; i < list.length; i++) setBit(bits, list[i]!);
      this.listBits.set(list, bits);
    }
    return bits;
  }
}
