// The keyword index's terms, sorted in code-unit order, held as the UTF-8 bytes of terms.txt and the start of each
// term in them rather than as an array of strings: one buffer instead of hundreds of thousands of strings, which the
// garbage collector no longer has to walk on every full collection. Bytes rather than one joined string: some terms
// are not Latin-1, so V8 held the joined text at two bytes a character in its heap, where the UTF-8 bytes are half
// that, outside the heap (bench/records/2026-11-24-start-time.md). Lookups decode in place and
// compare code units, so the order is the one the build sorted by (UTF-8 byte order differs from it for astral
// characters against U+E000-U+FFFF). The runtime's filter keys (posting-keys.txt, sorted the same way) use it too.

import { partitionPoint } from './lower-bound.ts';

const NEWLINE = 0x0a;

export class TermTable implements Iterable<string> {
  readonly length: number;
  /** The terms joined by '\n', as UTF-8 (the bytes of terms.txt). */
  readonly bytes: Buffer;
  /** Where term i starts in `bytes`; starts[length] is one past the end of the last term. */
  private readonly starts: Uint32Array;

  private constructor(bytes: Buffer, starts: Uint32Array) {
    this.bytes = bytes;
    this.starts = starts;
    this.length = starts.length - 1;
  }

  /** The table of sorted terms (none may hold '\n'). */
  static of(terms: readonly string[]): TermTable {
    return TermTable.fromBytes(Buffer.from(terms.join('\n'), 'utf8'), terms.length);
  }

  /** The table of the '\n'-separated UTF-8 bytes of `count` sorted terms. */
  static fromBytes(bytes: Buffer, count: number): TermTable {
    const starts = new Uint32Array(count + 1);
    // One scan of the bytes: a call of indexOf per term cost more than the scan, the terms being short.
    let i = 0;
    for (let at = 0; at < bytes.length; at++) {
      if (bytes[at] !== NEWLINE) continue;
      if (++i >= count) throw new Error(`term table: the text holds more than ${count} terms`);
      starts[i] = at + 1;
    }
    if (count > 0 && i !== count - 1) throw new Error(`term table: the text holds ${i + 1} terms, not ${count}`);
    starts[count] = count === 0 ? 0 : bytes.length + 1;
    return new TermTable(bytes, starts);
  }

  at(i: number): string {
    return this.bytes.toString('utf8', this.starts[i]!, this.starts[i + 1]! - 1);
  }

  /** Where term i's UTF-8 starts in `bytes`. */
  start(i: number): number {
    return this.starts[i]!;
  }

  /** Bytes of term i's UTF-8: from its length in code units to three times it. */
  byteLength(i: number): number {
    return this.starts[i + 1]! - 1 - this.starts[i]!;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /** The first index whose term is not below `key` (code-unit order). */
  lowerBound(key: string): number {
    return partitionPoint(0, this.length, (i) => this.compare(i, key) < 0);
  }

  /** The index of `term`, or -1. */
  indexOf(term: string): number {
    const i = this.lowerBound(term);
    return i < this.length && this.compare(i, term) === 0 ? i : -1;
  }

  /** The indexes [from, to) of the terms that begin with `prefix` (one block, as the terms are sorted). */
  prefixRange(prefix: string): [from: number, to: number] {
    const from = this.lowerBound(prefix);
    return [from, partitionPoint(from, this.length, (i) => this.startsWith(i, prefix))];
  }

  /** Does term i begin with `prefix`? */
  startsWith(i: number, prefix: string): boolean {
    return this.compareFrom(i, prefix, true) === 0;
  }

  /** Term i against `key` in code-unit order: negative, 0 or positive. */
  private compare(i: number, key: string): number {
    return this.compareFrom(i, key, false);
  }

  /**
   * Term i against `key`, code unit by code unit, decoding the term's UTF-8 as it goes (an astral character is two
   * units, its surrogates); with `prefixOnly`, 0 once `key` is used up.
   */
  private compareFrom(i: number, key: string, prefixOnly: boolean): number {
    const bytes = this.bytes;
    const end = this.starts[i + 1]! - 1;
    let at = this.starts[i]!;
    let k = 0;
    while (at < end) {
      if (k === key.length) return prefixOnly ? 0 : 1;
      const lead = bytes[at]!;
      let unit: number;
      if (lead < 0x80) {
        unit = lead;
        at += 1;
      } else if (lead < 0xe0) {
        unit = ((lead & 0x1f) << 6) | (bytes[at + 1]! & 0x3f);
        at += 2;
      } else if (lead < 0xf0) {
        unit = ((lead & 0x0f) << 12) | ((bytes[at + 1]! & 0x3f) << 6) | (bytes[at + 2]! & 0x3f);
        at += 3;
      } else {
        const point = ((lead & 0x07) << 18) | ((bytes[at + 1]! & 0x3f) << 12) | ((bytes[at + 2]! & 0x3f) << 6) | (bytes[at + 3]! & 0x3f);
        at += 4;
        const high = 0xd800 + ((point - 0x10000) >> 10);
        const diff = high - key.charCodeAt(k++);
        if (diff !== 0) return diff;
        if (k === key.length) return prefixOnly ? 0 : 1;
        unit = 0xdc00 + ((point - 0x10000) & 0x3ff);
      }
      const diff = unit - key.charCodeAt(k++);
      if (diff !== 0) return diff;
    }
    return k === key.length ? 0 : -1;
  }
}
