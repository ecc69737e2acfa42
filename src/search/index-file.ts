// The on-disk format of the keyword index, written by the build and read by the shim (no re-indexing):
//   <dir>/terms.txt     the terms in code-unit order, one a line
//   <dir>/postings.bin  typed arrays, each 8-byte aligned, laid out as index.json says
//   <dir>/index.json    { format, count, terms, arrays: { name: { kind, byteOffset, length } } }
// Posting list t is docs/impacts/fields[offsets[t] .. offsets[t + 1]), documents ascending. A list longer than
// BLOCK_SIZE also has block maxima: blockTerms[i] is such a term (ascending), its blocks are
// blockStarts[i] .. blockStarts[i + 1], and block j covers postings offsets[t] + j·BLOCK_SIZE onwards.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TermTable } from './term-table.ts';
import { readFilePlain, type ReadFile } from '../artifacts/shared-file.ts';

/**
 * 3: symbol words (c#, c++, .net) are terms of their own; 4: CJK text as pairs of characters; 5: irregular plurals
 * (src/search/tokenizer.ts); 6: a description's word pairs that a name holds joined (index-builder.ts, addName);
 * 7: numbers with dots are one word ("3.12", tokenizer.ts).
 */
export const KEYWORD_INDEX_FORMAT = 8;
/** Postings per block of a long list: a search skips a block whose best possible score cannot reach its page. */
export const BLOCK_SIZE = 64;

export interface KeywordIndexData {
  /** Number of documents. */
  count: number;
  /** The terms in code-unit order; term t's postings are at offsets[t]. */
  terms: TermTable;
  offsets: Uint32Array;
  docs: Uint32Array;
  /** BM25F impact of the term in the document (src/domain/listing/ranking.ts). */
  impacts: Float32Array;
  /** Bit mask of the fields (SEARCH_FIELDS order) the term occurs in. */
  fields: Uint8Array;
  /** hash32 of each document's nameKey, for the exact-name bonus. */
  nameKeys: Uint32Array;
  /** The documents ordered by nameKeys, then number: the listings with a given name key are one range. */
  nameOrder: Uint32Array;
  /** Terms whose lists are longer than BLOCK_SIZE, ascending. */
  blockTerms: Uint32Array;
  /** First block of each of blockTerms, and the end of the last. */
  blockStarts: Uint32Array;
  /** Per block: the largest impact in it. */
  blockImpacts: Float32Array;
  /** Per block: the largest popularity prior of its documents (1 when the build did not give popularity). */
  blockPopularity: Float32Array;
  /** Per block: the largest relevanceScore(impact, no bonus, popularity) of its postings, stored as float32. */
  blockScores: Float32Array;
}

const ARRAYS = [
  'offsets',
  'docs',
  'impacts',
  'fields',
  'nameKeys',
  'nameOrder',
  'blockTerms',
  'blockStarts',
  'blockImpacts',
  'blockPopularity',
  'blockScores',
] as const;
type ArrayName = (typeof ARRAYS)[number];
const CONSTRUCTORS = { Uint8Array, Uint32Array, Float32Array } as const;
type Kind = keyof typeof CONSTRUCTORS;

interface Layout {
  format: number;
  count: number;
  terms: number;
  arrays: Record<ArrayName, { kind: Kind; byteOffset: number; length: number }>;
}

export function writeKeywordIndex(dir: string, index: KeywordIndexData): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'terms.txt'), index.terms.bytes);
  const arrays = {} as Layout['arrays'];
  let offset = 0;
  for (const name of ARRAYS) {
    const array = index[name];
    arrays[name] = { kind: array.constructor.name as Kind, byteOffset: offset, length: array.length };
    offset = Math.ceil((offset + array.byteLength) / 8) * 8;
  }
  const buffer = Buffer.alloc(offset);
  for (const name of ARRAYS) {
    const array = index[name];
    buffer.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), arrays[name].byteOffset);
  }
  writeFileSync(join(dir, 'postings.bin'), buffer);
  const layout: Layout = { format: KEYWORD_INDEX_FORMAT, count: index.count, terms: index.terms.length, arrays };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(layout));
}

/** Whether `dir` holds a keyword index this code reads (one written in KEYWORD_INDEX_FORMAT). */
export function isCurrentKeywordIndex(dir: string): boolean {
  const path = join(dir, 'index.json');
  return existsSync(path) && (JSON.parse(readFileSync(path, 'utf8')) as Layout).format === KEYWORD_INDEX_FORMAT;
}

export function readKeywordIndex(dir: string, readFile: ReadFile = readFilePlain): KeywordIndexData {
  const layout = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Layout;
  if (layout.format !== KEYWORD_INDEX_FORMAT) throw new Error(`keyword index format ${layout.format}, expected ${KEYWORD_INDEX_FORMAT}; rebuild`);
  const terms = TermTable.fromBytes(readFile(join(dir, 'terms.txt')), layout.terms);
  const file = readFile(join(dir, 'postings.bin'));
  // Typed-array views need aligned offsets: a large or shared file's Buffer owns its memory from offset 0 and is
  // used as it is; a small one may sit anywhere in Node's pool and is copied into its own.
  let buffer: ArrayBufferLike = file.buffer;
  if (file.byteOffset !== 0 || file.buffer.byteLength !== file.byteLength) {
    buffer = new ArrayBuffer(file.byteLength);
    new Uint8Array(buffer).set(file);
  }
  const view = (name: ArrayName) => {
    const { kind, byteOffset, length } = layout.arrays[name];
    // The cast is for TypeScript only: views over a SharedArrayBuffer are made and read the same way.
    return new CONSTRUCTORS[kind](buffer as ArrayBuffer, byteOffset, length);
  };
  return {
    count: layout.count,
    terms,
    offsets: view('offsets') as Uint32Array,
    docs: view('docs') as Uint32Array,
    impacts: view('impacts') as Float32Array,
    fields: view('fields') as Uint8Array,
    nameKeys: view('nameKeys') as Uint32Array,
    nameOrder: view('nameOrder') as Uint32Array,
    blockTerms: view('blockTerms') as Uint32Array,
    blockStarts: view('blockStarts') as Uint32Array,
    blockImpacts: view('blockImpacts') as Float32Array,
    blockPopularity: view('blockPopularity') as Float32Array,
    blockScores: view('blockScores') as Float32Array,
  };
}
