// Trains the offline static sentence-embedding model from the catalog's own text and writes it in
// the Transformers.js model layout, so the build and the server load it through the unmodified
// feature-extraction pipeline (see embedder.ts). Method: WordPiece vocabulary from the corpus,
// windowed co-occurrence counts, PPMI, truncated SVD by randomized subspace iteration; each token
// row is unit-normalized and scaled by its IDF, so the pipeline's mean pooling yields an
// IDF-weighted average. Same texts + options → byte-identical files.

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PairCounter, buildSymmetricCsr, randomizedSymmetricEigen } from './linalg.ts';
import { MANIFEST_FILE, MODEL_FORMAT, MODEL_FORMAT_VERSION, type ModelManifest } from './model-manifest.ts';
import { staticEmbeddingOnnx } from './onnx.ts';
import {
  SPECIAL_TOKENS,
  UNK_ID,
  WordPieceEncoder,
  buildVocab,
  normalizeText,
  preTokenize,
  tokenizerConfigJson,
  tokenizerJson,
} from './tokenizer.ts';

export { MANIFEST_FILE, MODEL_FORMAT, MODEL_FORMAT_VERSION, type ModelManifest } from './model-manifest.ts';

export interface TrainOptions {
  /** Embedding dimensions (SVD rank). */
  dims?: number;
  /** Whole-word vocabulary cap. */
  maxWords?: number;
  /** Minimum corpus count for a word to enter the vocabulary. */
  minCount?: number;
  /** Cap on ##suffix continuation pieces. */
  maxSubwords?: number;
  /** Co-occurrence window (tokens each side). */
  window?: number;
  /** Pair weight by distance d: 1/d ('harmonic') or 1 ('flat'). */
  windowWeighting?: 'harmonic' | 'flat';
  /** Context-distribution smoothing exponent for PMI (Levy et al. 2015). */
  smoothing?: number;
  /** Exponent on singular values when forming word vectors (0 = plain singular vectors). */
  eigenPower?: number;
  /** Randomized SVD: extra subspace columns and power iterations. */
  oversample?: number;
  powerIterations?: number;
  seed?: number;
  /** Row weight = idf^idfPower (0 = plain mean pooling, 1 = IDF-weighted). */
  idfPower?: number;
  /** Tokenizer truncation length (model_max_length). */
  maxLength?: number;
  /** Called with progress lines; timings never go into the written files. */
  log?: (line: string) => void;
}

const DEFAULTS = {
  dims: 256,
  maxWords: 30_000,
  minCount: 2,
  maxSubwords: 2_000,
  window: 10,
  windowWeighting: 'flat' as 'harmonic' | 'flat',
  smoothing: 0.75,
  eigenPower: 0,
  oversample: 16,
  powerIterations: 1,
  seed: 42,
  idfPower: 1,
  maxLength: 512,
} as const;

export interface TrainResult {
  outDir: string;
  manifest: ModelManifest;
  timingsMs: Record<string, number>;
}

function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function trainStaticModel(
  texts: Iterable<string> | string[],
  outDir: string,
  options: TrainOptions = {},
): Promise<TrainResult> {
  const { log, ...rest } = options;
  const opt = { ...DEFAULTS, ...rest };
  if (opt.dims < 1 || !Number.isInteger(opt.dims)) throw new Error('dims must be a positive integer');
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (name: string, detail = ''): void => {
    const t = performance.now();
    timings[name] = Math.round(t - t0);
    log?.(`${name}: ${timings[name]} ms${detail ? ` (${detail})` : ''}`);
    t0 = t;
  };

  // Pass 1: words of every document as ids into a word table (compact: one Int32Array per doc).
  // Literal special tokens in the text are kept as negative ids, to mirror the runtime tokenizer.
  const corpusHash = createHash('sha256');
  const wordIds = new Map<string, number>();
  const wordList: string[] = [];
  const wordCounts: number[] = [];
  const docs: Int32Array[] = [];
  const specialRe = /\[(?:PAD|UNK|CLS|SEP|MASK)\]/g;
  const buf: number[] = [];
  const pushWords = (part: string): void => {
    if (part.length === 0) return;
    for (const w of preTokenize(normalizeText(part))) {
      let id = wordIds.get(w);
      if (id === undefined) {
        id = wordList.length;
        wordIds.set(w, id);
        wordList.push(w);
        wordCounts.push(0);
      }
      wordCounts[id]!++;
      buf.push(id);
    }
  };
  for (const text of texts) {
    corpusHash.update(text).update('\u0000');
    buf.length = 0;
    let last = 0;
    for (const m of text.matchAll(specialRe)) {
      pushWords(text.slice(last, m.index));
      buf.push(-1 - SPECIAL_TOKENS.indexOf(m[0] as (typeof SPECIAL_TOKENS)[number]));
      last = m.index + m[0].length;
    }
    pushWords(text.slice(last));
    docs.push(Int32Array.from(buf));
  }
  lap('pretokenize');

  const counts = new Map<string, number>();
  wordList.forEach((w, i) => counts.set(w, wordCounts[i]!));
  const vocabList = buildVocab(counts, { maxWords: opt.maxWords, minCount: opt.minCount, maxSubwords: opt.maxSubwords });
  if (vocabList.length >= 0xffff) throw new Error('vocabulary too large for the pair counter (max 65534)');
  const vocab = new Map<string, number>();
  vocabList.forEach((t, i) => vocab.set(t, i));
  const encoder = new WordPieceEncoder(vocab);
  const pieces = wordList.map((w) => Int32Array.from(encoder.encodeWord(w)));
  const V = vocabList.length;
  const firstContent = SPECIAL_TOKENS.length;
  lap('vocab', `${V} tokens`);

  // Pass 2: token sequences (specials and [UNK] dropped), windowed counts, document frequency.
  const pairs = new PairCounter(20);
  const df = new Float64Array(V);
  const stamp = new Int32Array(V).fill(-1);
  const win = opt.window;
  const weights = Float32Array.from({ length: win + 1 }, (_, d) => (d === 0 ? 0 : opt.windowWeighting === 'flat' ? 1 : 1 / d));
  let tokens = 0;
  const seq: number[] = [];
  for (let d = 0; d < docs.length; d++) {
    seq.length = 0;
    for (const wid of docs[d]!) {
      if (wid < 0) continue;
      for (const t of pieces[wid]!) if (t >= firstContent && t !== UNK_ID) seq.push(t);
    }
    tokens += seq.length;
    for (let a = 0; a < seq.length; a++) {
      const ta = seq[a]!;
      if (stamp[ta] !== d) {
        stamp[ta] = d;
        df[ta]!++;
      }
      const end = Math.min(seq.length, a + win + 1);
      for (let b = a + 1; b < end; b++) pairs.add(ta, seq[b]!, weights[b - a]!);
    }
  }
  lap('cooccurrence', `${pairs.size} distinct pairs, ${tokens} tokens`);

  // PPMI with context-distribution smoothing applied symmetrically, so the matrix stays symmetric
  // and only its upper triangle is stored: PMI = log(c_ij · S² / (T · c_i^α · c_j^α)).
  const rowSum = new Float64Array(V);
  pairs.forEach((i, j, w) => {
    rowSum[i]! += w;
    rowSum[j]! += w; // diagonal pairs count twice in the full matrix, as both orders occur
  });
  let total = 0;
  let smoothSum = 0;
  const rowPow = new Float64Array(V);
  for (let i = 0; i < V; i++) {
    total += rowSum[i]!;
    rowPow[i] = rowSum[i]! > 0 ? rowSum[i]! ** opt.smoothing : 0;
    smoothSum += rowPow[i]!;
  }
  const logScale = Math.log((smoothSum * smoothSum) / Math.max(total, 1e-300));
  const csr = buildSymmetricCsr(V, (fn) =>
    pairs.forEach((i, j, w) => {
      const c = i === j ? 2 * w : w;
      const pmi = Math.log(c) + logScale - Math.log(rowPow[i]!) - Math.log(rowPow[j]!);
      if (pmi > 0) fn(i, j, pmi);
    }),
  );
  lap('ppmi', `${csr.cols.length} positive entries in the upper triangle`);

  const k = Math.min(opt.dims, V);
  const eig = randomizedSymmetricEigen(csr, k, {
    oversample: opt.oversample,
    powerIterations: opt.powerIterations,
    seed: opt.seed,
    log,
  });
  lap('svd');

  const N = docs.length;
  const dims = opt.dims;
  const table = new Float32Array(V * dims);
  const scale = Float64Array.from(eig.values, (s) => s ** opt.eigenPower);
  const row = new Float64Array(eig.k);
  for (let i = firstContent; i < V; i++) {
    if (df[i] === 0) continue;
    let norm = 0;
    for (let c = 0; c < eig.k; c++) {
      row[c] = eig.vectors[i * eig.k + c]! * scale[c]!;
      norm += row[c]! * row[c]!;
    }
    if (norm === 0) continue;
    const idf = Math.log((N + 1) / (df[i]! + 1));
    const f = idf ** opt.idfPower / Math.sqrt(norm);
    for (let c = 0; c < eig.k; c++) table[i * dims + c] = row[c]! * f;
  }
  lap('table');

  const files: [string, Uint8Array][] = [];
  const json = (o: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(o, null, 2)}\n`);
  files.push(['config.json', json(bertConfig(V, dims, opt.maxLength))]);
  files.push(['tokenizer.json', json(tokenizerJson(vocabList))]);
  files.push(['tokenizer_config.json', json(tokenizerConfigJson(opt.maxLength))]);
  files.push(['special_tokens_map.json', json(specialTokensMap())]);
  files.push(['onnx/model.onnx', staticEmbeddingOnnx(table, V, dims, `format-${MODEL_FORMAT_VERSION}`)]);
  const fileInfo: Record<string, { bytes: number; sha256: string }> = {};
  const content = createHash('sha256');
  for (const [name, data] of files) {
    const h = sha256(data);
    fileInfo[name] = { bytes: data.length, sha256: h };
    content.update(`${name}\u0000${h}\n`);
  }
  const contentHash = content.digest('hex');
  const training: Record<string, number | string> = { ...opt };
  const manifest: ModelManifest = {
    format: MODEL_FORMAT,
    formatVersion: MODEL_FORMAT_VERSION,
    modelId: `catalog-static-${dims}d-${contentHash.slice(0, 12)}`,
    dims,
    vocabSize: V,
    maxLength: opt.maxLength,
    pooling: 'mean',
    normalize: true,
    corpus: { documents: N, tokens, distinctWords: wordList.length, sha256: corpusHash.digest('hex') },
    training,
    contentHash,
    files: fileInfo,
  };
  files.push([MANIFEST_FILE, json(manifest)]);

  await mkdir(join(outDir, 'onnx'), { recursive: true });
  for (const [name, data] of files) await writeFile(join(outDir, name), data);
  lap('write');
  return { outDir, manifest, timingsMs: timings };
}

function bertConfig(vocabSize: number, dims: number, maxLength: number): object {
  // Fields a BERT config carries; transformers.js only needs model_type to pick the encoder-only
  // BertModel class, which feeds exactly the inputs the ONNX graph declares.
  return {
    architectures: ['BertModel'],
    model_type: 'bert',
    vocab_size: vocabSize,
    hidden_size: dims,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: dims,
    max_position_embeddings: maxLength,
    type_vocab_size: 1,
    pad_token_id: 0,
    'transformers.js_config': { dtype: 'fp32' },
    catalog_static_embedding: true,
  };
}

function specialTokensMap(): object {
  return { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]' };
}
