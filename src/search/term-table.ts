// The keyword index's terms, sorted in code-unit order, held as one string and the start of each term in it rather
// than as an array of strings: at 100k listings that is one object instead of ~411,000, which the garbage
// collector no longer has to walk on every full collection (the string is 13 MB there: two bytes a character,
// since some terms are not Latin-1). Lookups compare in place.

export class TermTable implements Iterable<string> {
  readonly length: number;
  /** The terms joined by '\n' (the text of terms.txt). */
  readonly text: string;
  /** Where term i starts in `text`; starts[length] is one past the end of the last term. */
  private readonly starts: Uint32Array;

  private constructor(text: string, starts: Uint32Array) {
    this.text = text;
    this.starts = starts;
    this.length = starts.length - 1;
  }

  /** The table of sorted terms (none may hold '\n'). */
  static of(terms: readonly string[]): TermTable {
    return TermTable.fromText(terms.join('\n'), terms.length);
  }

  /** The table of the '\n'-separated text of `count` sorted terms. */
  static fromText(text: string, count: number): TermTable {
    const starts = new Uint32Array(count + 1);
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (at > text.length) throw new Error(`term table: the text holds ${i} terms, not ${count}`);
      starts[i] = at;
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length + 1 : end + 1;
    }
    starts[count] = count === 0 ? 0 : at;
    if (count > 0 && at !== text.length + 1) throw new Error(`term table: the text holds more than ${count} terms`);
    return new TermTable(text, starts);
  }

  at(i: number): string {
    return this.text.slice(this.starts[i]!, this.starts[i + 1]! - 1);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /** The first index whose term is not below `key` (code-unit order). */
  lowerBound(key: string): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of `term`, or -1. */
  indexOf(term: string): number {
    const i = this.lowerBound(term);
    return i < this.length && this.compare(i, term) === 0 ? i : -1;
  }

  /** The indexes [from, to) of the terms that begin with `prefix` (one block, as the terms are sorted). */
  prefixRange(prefix: string): [from: number, to: number] {
    const from = this.lowerBound(prefix);
    let lo = from;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.startsWith(mid, prefix)) lo = mid + 1;
      else hi = mid;
    }
    return [from, lo];
  }

  /** Does term i begin with `prefix`? */
  startsWith(i: number, prefix: string): boolean {
    const start = this.starts[i]!;
    return this.starts[i + 1]! - 1 - start >= prefix.length && this.text.startsWith(prefix, start);
  }

  /** Term i against `key` in code-unit order: negative, 0 or positive. */
  private compare(i: number, key: string): number {
    const text = this.text;
    const start = this.starts[i]!;
    const length = this.starts[i + 1]! - 1 - start;
    const shared = Math.min(length, key.length);
    for (let k = 0; k < shared; k++) {
      const diff = text.charCodeAt(start + k) - key.charCodeAt(k);
      if (diff !== 0) return diff;
    }
    return length - key.length;
  }
}
