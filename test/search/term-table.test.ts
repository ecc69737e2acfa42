// The keyword index's term table (src/search/term-table.ts) answers as a sorted array of strings would: the same
// terms, lookups and prefix tests in code-unit order, for ASCII, accented, CJK and astral terms alike, from its
// UTF-8 bytes (whose own order differs from code-unit order for astral characters against U+E000-U+FFFF).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TermTable } from '../../src/search/term-table.ts';

const terms = ['a', 'ab', 'abc', 'abd', 'b', 'café', 'cafe\u0301', 'mcp', 'mcps', 'z', '\u{1F600}x', '\uFB01', '数据'].sort();

/** The reference: the first index of a sorted array whose term is not below `key`. */
function lowerBound(key: string): number {
  const i = terms.findIndex((term) => !(term < key));
  return i < 0 ? terms.length : i;
}

describe('TermTable', () => {
  const table = TermTable.of(terms);

  it('holds the terms in order, and reads back from its text', () => {
    expect(table.length).toBe(terms.length);
    expect([...table]).toEqual(terms);
    expect(terms.map((_, i) => table.at(i))).toEqual(terms);
    expect(table.bytes).toEqual(Buffer.from(terms.join('\n'), 'utf8'));
    expect([...TermTable.fromBytes(table.bytes, terms.length)]).toEqual(terms);
  });

  it('finds every term and no other', () => {
    terms.forEach((term, i) => expect(table.indexOf(term)).toBe(i));
    for (const absent of ['', 'aa', 'abcd', 'c', 'caf', 'mc', 'zz', '\u{1F600}', '数', '\uFFFF']) expect(table.indexOf(absent), absent).toBe(-1);
  });

  it('places any key where a sorted array would', () => {
    for (const key of ['', 'a', 'aa', 'ab', 'abz', 'b', 'ca', 'café', 'mcp', 'mcpz', 'zz', '\u{1F600}', '\uFB00', '\uFFFF', '数'])
      expect(table.lowerBound(key), key).toBe(lowerBound(key));
  });

  it('tells which terms begin with a prefix', () => {
    for (const prefix of ['a', 'ab', 'abc', 'abcd', 'mcp', 'caf', '数', '']) {
      expect(
        terms.map((_, i) => table.startsWith(i, prefix)),
        prefix,
      ).toEqual(terms.map((term) => term.startsWith(prefix)));
    }
  });

  it('gives the block of terms that begin with a prefix', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd', 'b', 'caf', 'mcp', 'mcpz', 'z', '数', '\u{1F600}', '\uFFFF']) {
      const inside = terms.flatMap((term, i) => (term.startsWith(prefix) ? [i] : []));
      const [from, to] = table.prefixRange(prefix);
      expect(
        Array.from({ length: to - from }, (_, k) => from + k),
        prefix,
      ).toEqual(inside);
      if (inside.length === 0) expect(from, prefix).toBe(lowerBound(prefix));
    }
    expect(TermTable.of([]).prefixRange('a')).toEqual([0, 0]);
  });

  it('agrees with a sorted array on random terms of every script, astral ones beside U+E000-U+FFFF included', () => {
    // Characters from each UTF-8 length, with the range where UTF-8 order and code-unit order part.
    const char = fc.constantFrom('a', 'b', 'z', '0', 'é', 'ß', 'ж', '数', '据', '\uE000', '\uFA0E', '\uFB01', '\uFFFD', '\u{20000}', '\u{1F600}', '\u{10FFFF}');
    const word = fc.array(char, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 40 }), fc.array(word, { minLength: 1, maxLength: 10 }), (words, keys) => {
        const sorted = [...words].sort();
        const random = TermTable.of(sorted);
        expect([...random]).toEqual(sorted);
        for (const key of keys) {
          const below = sorted.findIndex((term) => !(term < key));
          expect(random.lowerBound(key)).toBe(below < 0 ? sorted.length : below);
          expect(random.indexOf(key)).toBe(sorted.indexOf(key));
          const inside = sorted.flatMap((term, i) => (term.startsWith(key) ? [i] : []));
          const [from, to] = random.prefixRange(key);
          expect(Array.from({ length: to - from }, (_, k) => from + k)).toEqual(inside);
        }
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('is empty without terms, and refuses text that holds another number of terms', () => {
    const empty = TermTable.of([]);
    expect(empty.length).toBe(0);
    expect(empty.indexOf('a')).toBe(-1);
    expect([...empty]).toEqual([]);
    expect(() => TermTable.fromBytes(Buffer.from('a\nb\nc'), 2)).toThrow(/more than 2 terms/);
    expect(() => TermTable.fromBytes(Buffer.from('a\nb'), 3)).toThrow(/holds 2 terms, not 3/);
  });
});
