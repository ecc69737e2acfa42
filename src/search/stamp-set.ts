// A set of document numbers with O(1) reset: a stamp per document, cleared by moving to the next generation.
// Searches mark documents in it once per request without clearing an array of the catalog's size each time
// (keyword candidates in src/search/keyword-search.ts, the documents a top-k holds in src/search/ranking/top-k.ts).
export class StampSet {
  private readonly stamps: Uint32Array;
  private generation = 0;
  constructor(size: number) {
    this.stamps = new Uint32Array(size);
  }
  /** Empties the set (a new generation; the stamps are zeroed only when the counter wraps). */
  next(): number {
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }
  /** Empties the set, then adds every document of `docs`. */
  fill(docs: ArrayLike<number>): void {
    const g = this.next();
    for (let i = 0; i < docs.length; i++) this.stamps[docs[i]!] = g;
  }
  has(doc: number): boolean {
    return this.stamps[doc] === this.generation;
  }
  /** Removes `doc` (generations start at 1, so stamp 0 is never in). */
  delete(doc: number): void {
    this.stamps[doc] = 0;
  }
  /** Adds `doc`; false when it was already in. */
  mark(doc: number): boolean {
    if (this.stamps[doc] === this.generation) return false;
    this.stamps[doc] = this.generation;
    return true;
  }
}
