// One bit per listing, in 32-bit words: how the search engine holds a set of listings it tests many times (a
// filter's members, the matches of common words). Testing a bit of a catalog-sized bitset stays in cache where
// re-marking a long list per search would not.

/** A set of documents: bit (doc & 31) of word (doc >>> 5). */
export type Bitset = Uint32Array;

/** An empty bitset for documents 0..count-1. */
export function bitsetFor(count: number): Bitset {
  return new Uint32Array(Math.ceil(count / 32));
}

export function hasBit(bits: Bitset, doc: number): boolean {
  return ((bits[doc >>> 5]! >>> (doc & 31)) & 1) === 1;
}

export function setBit(bits: Bitset, doc: number): void {
  bits[doc >>> 5]! |= 1 << (doc & 31);
}

/** Calls `each` with every member, ascending. */
export function forEachBit(bits: Bitset, each: (doc: number) => void): void {
  for (let i = 0; i < bits.length; i++) {
    for (let word = bits[i]!; word !== 0; word &= word - 1) each(i * 32 + (31 - Math.clz32(word & -word)));
  }
}
