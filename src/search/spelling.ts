// Typo tolerance for `q`, used only when a query has no exact hits (query-engine.ts): a query word that is no term of
// the index ("kubernetis", "telegarm") is replaced by the closest term that is, and the answer says so
// (Search-Corrected). Closest: fewest edits (insert, delete, substitute, swap two neighbours), then the term in
// most listings, then the first in term order. Words under CORRECTED_MIN_LENGTH are never corrected: a short word
// is a few edits away from too many others. The first character is kept, as typing seldom gets it wrong, and it
// bounds the terms read to those that begin with it. A corrected search costs several times a search of real words,
// so the engine keeps the corrections of recent query texts (bench/records/2026-11-24-spelling.md).
import type { TermTable } from './term-table.ts';

/** Words shorter than this are not corrected. */
export const CORRECTED_MIN_LENGTH = 4;
/** From this length a word may be two edits away from its correction, below it one. */
export const TWO_EDITS_FROM_LENGTH = 8;
/** Longer words are not corrected (a query is at most 128 characters; no term of a real word is this long). */
const CORRECTED_MAX_LENGTH = 40;

/** Edits a word of this length may be away from its correction. */
export function editsAllowed(length: number): number {
  if (length < CORRECTED_MIN_LENGTH || length > CORRECTED_MAX_LENGTH) return 0;
  return length >= TWO_EDITS_FROM_LENGTH ? 2 : 1;
}

/** Three rows of the distance table, reused (grown for a longer term): a term is compared without allocating. */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)] as [Int32Array, Int32Array, Int32Array];

/**
 * The optimal-string-alignment distance between code units `a[0..aLength)` and `b[bFrom..bFrom + bLength)`
 * (insertions, deletions, substitutions and swaps of two neighbouring characters), or `max + 1` as soon as it
 * must exceed `max`.
 */
function distance(a: ArrayLike<number>, aLength: number, b: ArrayLike<number>, bFrom: number, bLength: number, max: number): number {
  if (Math.abs(aLength - bLength) > max) return max + 1;
  if (rows[0].length <= bLength) rows = [new Int32Array(bLength + 1), new Int32Array(bLength + 1), new Int32Array(bLength + 1)];
  let [before, previous, current] = rows;
  for (let j = 0; j <= bLength; j++) previous[j] = j;
  for (let i = 1; i <= aLength; i++) {
    current[0] = i;
    let rowBest = i;
    const ai = a[i - 1]!;
    for (let j = 1; j <= bLength; j++) {
      const bj = b[bFrom + j - 1]!;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b[bFrom + j - 2] && a[i - 2] === bj) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowBest) rowBest = d;
    }
    if (rowBest > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[bLength]!, max + 1);
}

/** The distance between two strings, as closestTerm counts it (`max + 1` when over `max`). */
export function editDistance(a: string, b: string, max: number): number {
  return distance(codes(a), a.length, codes(b), 0, b.length, max);
}

/**
 * The characters of a term as bits: a-z one each, other ASCII characters folded onto five more, and one bit for
 * any byte beyond ASCII. A term holding k bits its word lacks (or lacking k of the word's) is at least k edits
 * away: with the bits of every term made once, most terms are ruled out without reading them.
 */
const BEYOND_ASCII = 1 << 31;

function letterBit(code: number): number {
  if (code >= 0x80) return BEYOND_ASCII;
  if (code >= 0x61 && code <= 0x7a) return 1 << (code - 0x61);
  return 1 << (26 + (code % 5));
}

function letterBits(codes: ArrayLike<number>, from: number, length: number): number {
  let bits = 0;
  for (let i = from; i < from + length; i++) bits |= letterBit(codes[i]!);
  return bits;
}

/** Per term: the bits of its bytes and its length in bytes (at most 255), read by a correction in one pass. */
interface TermShapes {
  bits: Int32Array;
  sizes: Uint8Array;
}

/** Per term table, made on the first correction (a cost only a misspelled query pays). */
const shapesOf = new WeakMap<TermTable, TermShapes>();

function termShapes(terms: TermTable): TermShapes {
  let shapes = shapesOf.get(terms);
  if (!shapes) {
    shapes = { bits: new Int32Array(terms.length), sizes: new Uint8Array(terms.length) };
    for (let t = 0; t < terms.length; t++) {
      const size = terms.byteLength(t);
      shapes.bits[t] = letterBits(terms.bytes, terms.start(t), size);
      shapes.sizes[t] = Math.min(size, 255);
    }
    shapesOf.set(terms, shapes);
  }
  return shapes;
}

/** Whether `bits` has more than `n` bits set (n is 0, 1 or 2 here): each `x & (x - 1)` clears one. */
function moreBitsThan(bits: number, n: number): boolean {
  let rest = bits;
  for (let i = 0; i < n && rest !== 0; i++) rest &= rest - 1;
  return rest !== 0;
}

function codes(text: string): number[] {
  return Array.from({ length: text.length }, (_, i) => text.charCodeAt(i));
}

/**
 * The index term closest to a query word (given as its surface and its stem: the closer of the two counts), within
 * the edits its length allows; -1 when there is none. `listings(t)` is the number of listings holding term t.
 * ASCII terms are compared in their bytes, others decoded: a correction looks at the terms of one first character
 * and compares only those whose length and characters could be close enough.
 */
export function closestTerm(terms: TermTable, listings: (term: number) => number, surface: string, stem: string): number {
  const max = editsAllowed(surface.length);
  if (max === 0) return -1;
  const words = stem === surface ? [surface] : [surface, stem];
  const wordCodes = words.map(codes);
  const wordBits = wordCodes.map((word) => letterBits(word, 0, word.length));
  const ascii = words.every((word) => /^\p{ASCII}*$/u.test(word));
  const first = String.fromCodePoint(surface.codePointAt(0)!);
  const [from, to] = terms.prefixRange(first);
  // A term within `max` edits has at least length - max code units, so as many bytes, and at most the word's
  // bytes plus three for each code unit inserted or substituted.
  const shortest = words.reduce((least, word) => Math.min(least, word.length), Infinity) - max;
  const longest = words.reduce((most, word) => Math.max(most, Buffer.byteLength(word)), 0) + 3 * max;
  const { bytes } = terms;
  const { bits: allBits, sizes } = termShapes(terms);
  let best = -1;
  let bestEdits = max + 1;
  let bestListings = 0;
  for (let t = from; t < to; t++) {
    const size = sizes[t]!;
    if (size < shortest || size > longest) continue;
    const bits = allBits[t]!;
    const bound = Math.min(max, bestEdits);
    let edits = bound + 1;
    if (ascii && (bits & BEYOND_ASCII) === 0) {
      for (let w = 0; w < words.length; w++) {
        if (moreBitsThan(bits & ~wordBits[w]!, bound) || moreBitsThan(wordBits[w]! & ~bits, bound)) continue;
        edits = Math.min(edits, distance(wordCodes[w]!, wordCodes[w]!.length, bytes, terms.start(t), size, bound));
      }
    } else {
      const term = terms.at(t);
      for (const word of words) edits = Math.min(edits, editDistance(word, term, bound));
    }
    if (edits > bound) continue;
    const count = listings(t);
    if (edits < bestEdits || count > bestListings) {
      best = t;
      bestEdits = edits;
      bestListings = count;
    }
  }
  return best;
}
