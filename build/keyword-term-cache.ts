// The keyword index's per-listing terms, kept with a build so that the next build reuses them: tokenizing and
// stemming every listing's texts is most of the keyword index's work, and a daily rebuild changes the texts of few
// listings. A listing's entry is keyed by the SHA-256 of the texts the index reads (fieldTexts), so a listing whose
// texts changed is tokenized anew; the file records the code fingerprint of the build that wrote it, so new code
// (a tokenizer change) reuses nothing. Every word pair of a description is kept, not only those the index held:
// which of them it holds depends on every listing's name (KeywordIndexBuilder.addName), so the next build picks its
// own from them (docs/decisions/016-term-cache-word-pairs.md).
//
// The file (one per build, <build>/index/keyword-terms.bin) holds only what the build's own listings gave, in
// document order, so a build that reused entries writes the same bytes as one that tokenized everything.
//   line 1: "catalog keyword terms <format> <fingerprint> <sha256 of the rest>\n"
//   u32 LE: term count, terms byte length, document count, entry count, pair count, pairs byte length, pair
//   occurrence count
//   u32 arrays: per document its name key hash, its field lengths (field by field), the entry starts (count + 1);
//   per entry its term (index into the terms) and its packed frequencies; per document the start of its word pairs
//   (count + 1); per occurrence its pair (index into the pairs)
//   per document its 16-byte key; the terms, UTF-8, each ended by NUL; the pairs, the same way
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SEARCH_FIELDS } from '../src/domain/listing/ranking.ts';
import type { KeptTerms, ListingTerms } from '../src/search/index-builder.ts';

/** Bumped when the file's layout or what an entry means changes. */
export const TERM_CACHE_FORMAT = 2;

const KEY_BYTES = 16;
const FIELDS = SEARCH_FIELDS.length;

/** The key of a listing's entry: a digest of the texts the keyword index reads from it (fieldTexts, in field order). */
export function termKey(texts: Readonly<Record<(typeof SEARCH_FIELDS)[number], string>>): Buffer {
  const hash = createHash('sha256');
  for (const field of SEARCH_FIELDS) hash.update(texts[field]).update('\0');
  return hash.digest().subarray(0, KEY_BYTES);
}

/** A previous build's terms, looked up by key. */
export interface TermCache {
  /** The document whose texts had this key, in `kept` (KeywordIndexBuilder.addKept). */
  find(key: Buffer): number | undefined;
  get(key: Buffer): ListingTerms | undefined;
  readonly kept: KeptTerms;
  readonly size: number;
}

/** Strings each ended by NUL, as UTF-8. */
const nulEnded = (texts: readonly string[]) => Buffer.from(texts.length > 0 ? `${texts.join('\0')}\0` : '');

const header = (fingerprint: string, digest: string) => `catalog keyword terms ${TERM_CACHE_FORMAT} ${fingerprint} ${digest}\n`;

/** Writes the terms of a build's documents (keys: document d's key at d * 16) to `path`. */
export function writeTermCache(path: string, fingerprint: string, keys: Buffer, kept: KeptTerms): void {
  const docs = kept.nameKeys.length;
  if (keys.length !== docs * KEY_BYTES) throw new Error(`term cache: ${keys.length / KEY_BYTES} keys for ${docs} documents`);
  const text = nulEnded(kept.terms);
  const pairText = nulEnded(kept.pairs);
  const counts = Uint32Array.of(kept.terms.length, text.length, docs, kept.termIds.length, kept.pairs.length, pairText.length, kept.pairIds.length);
  const parts = [counts, kept.nameKeys, ...kept.lengths, kept.docStarts, kept.termIds, kept.packed, kept.pairStarts, kept.pairIds].map((a) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength),
  );
  const body = Buffer.concat([...parts, keys, text, pairText]);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.concat([Buffer.from(header(fingerprint, createHash('sha256').update(body).digest('hex'))), body]));
}

/**
 * The terms a previous build wrote at `path`, when it was written by code with this `fingerprint` and is whole;
 * otherwise undefined (and the caller tokenizes every listing) with the reason in `why`.
 */
export function readTermCache(path: string, fingerprint: string, why: (reason: string) => void = () => undefined): TermCache | undefined {
  if (!existsSync(path)) return void why('none kept');
  const file = readFileSync(path);
  const newline = file.indexOf(10);
  const [magic, format, recorded, digest] = file
    .subarray(0, Math.max(newline, 0))
    .toString('latin1')
    .replace(/^catalog keyword terms /, 'ckt ')
    .split(' ');
  if (newline < 0 || magic !== 'ckt' || format !== String(TERM_CACHE_FORMAT)) return void why('another format');
  if (recorded !== fingerprint) return void why('written by other code');
  const body = file.subarray(newline + 1);
  if (createHash('sha256').update(body).digest('hex') !== digest) return void why('damaged');
  let at = 0;
  const u32 = (n: number): Uint32Array => {
    if (at + 4 * n > body.length) throw new Error('truncated');
    const out = new Uint32Array(n);
    Buffer.from(out.buffer).set(body.subarray(at, at + 4 * n));
    at += 4 * n;
    return out;
  };
  try {
    const [termCount, textBytes, docs, entries, pairCount, pairBytes, occurrences] = Array.from(u32(7), (n) => n) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const nameKeys = u32(docs);
    const lengths = Array.from({ length: FIELDS }, () => u32(docs));
    const docStarts = u32(docs + 1);
    const termIds = u32(entries);
    const packed = u32(entries);
    const pairStarts = u32(docs + 1);
    const pairIds = u32(occurrences);
    if (at + docs * KEY_BYTES + textBytes + pairBytes !== body.length) throw new Error('sizes disagree');
    const keys = body.subarray(at, at + docs * KEY_BYTES);
    const strings = (from: number, bytes: number) => {
      const list = body.toString('utf8', from, from + bytes).split('\0');
      list.pop();
      return list;
    };
    const terms = strings(at + docs * KEY_BYTES, textBytes);
    const pairs = strings(at + docs * KEY_BYTES + textBytes, pairBytes);
    if (
      terms.length !== termCount ||
      pairs.length !== pairCount ||
      docStarts[docs] !== entries ||
      pairStarts[docs] !== occurrences ||
      termIds.some((id) => id >= termCount) ||
      pairIds.some((id) => id >= pairCount)
    )
      throw new Error('sizes disagree');
    const docOf = new Map<string, number>();
    for (let d = 0; d < docs; d++) docOf.set(keys.toString('latin1', d * KEY_BYTES, (d + 1) * KEY_BYTES), d);
    const kept: KeptTerms = { terms, docStarts, termIds, packed, lengths, nameKeys, pairs, pairStarts, pairIds };
    const find = (key: Buffer) => docOf.get(key.toString('latin1'));
    return {
      size: docs,
      kept,
      find,
      get(key) {
        const d = find(key);
        if (d === undefined) return undefined;
        const [start, end] = [docStarts[d]!, docStarts[d + 1]!];
        return {
          terms: Array.from(termIds.subarray(start, end), (id) => terms[id]!),
          packed: packed.subarray(start, end),
          lengths: lengths.map((field) => field[d]!),
          nameKey: nameKeys[d]!,
          pairs: Array.from(pairIds.subarray(pairStarts[d]!, pairStarts[d + 1]!), (id) => pairs[id]!),
        };
      },
    };
  } catch (error) {
    return void why(`unreadable (${error instanceof Error ? error.message : String(error)})`);
  }
}
