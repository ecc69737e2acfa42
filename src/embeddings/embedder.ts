// The loader for an operator-supplied model directory (CATALOG_EMBEDDING_MODEL_DIR, e.g. all-MiniLM-L6-v2),
// shared by the build and the server's embedding worker. It runs the real transformers.js feature-extraction
// pipeline with remote models disabled, so nothing is ever downloaded. The default model is not loaded here:
// it is the distilled static encoder (src/embeddings/static-encoder.ts).

import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';

export interface Embedder {
  /** Stable identity of the model; stored next to vectors so a mismatch can be detected. */
  readonly modelId: string;
  readonly dims: number;
  readonly modelDir: string;
  /**
   * Mean-pooled, L2-normalized embeddings, one per text, in input order. A text with no known
   * token (e.g. only unknown characters) yields an all-zero vector rather than NaN: see isZero.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** True for the zero vector a text without known tokens produces: fall back to keyword search. */
  isZero(vec: Float32Array): boolean;
  dispose(): Promise<void>;
}

export interface LoadEmbedderOptions {
  /** Texts per pipeline call; texts are grouped by length so padding stays small. */
  batchSize?: number;
  /** ONNX weights variant for pretrained models ('fp32' → onnx/model.onnx, 'q8' → model_quantized.onnx). */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  /** ONNX Runtime intra-op threads (default: runtime's choice). */
  threads?: number;
  /**
   * Embed one short query at a time with the least memory: no ONNX Runtime arena or memory-pattern
   * buffers (they pay off for large batches only). The shim's query embedder sets it.
   */
  lowMemory?: boolean;
}

interface TensorLike {
  data: ArrayLike<number | bigint> & { length: number };
  dims: number[];
}

// The parts of the FeatureExtractionPipeline used here: the pipeline object itself, and its
// tokenizer and model, which are exactly what its _call runs before pooling.
interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean' | 'none'; normalize: boolean }): Promise<TensorLike>;
  tokenizer(texts: string[], options: { padding: boolean; truncation: boolean }): { attention_mask: TensorLike };
  model(inputs: unknown): Promise<Record<string, TensorLike | undefined>>;
  dispose(): Promise<void>;
}

let envConfigured = false;

/**
 * Offline-only settings for transformers.js, applied once per process. The library's file cache
 * is turned off too: local files are read in place, and a cached copy must never shadow them.
 */
function configureOffline(): void {
  if (envConfigured) return;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  env.useBrowserCache = false;
  envConfigured = true;
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Loads a model directory in the Transformers.js layout (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model*.onnx). The path is made absolute, which transformers.js uses
 * as-is instead of resolving it against env.localModelPath, so concurrent loads of different
 * directories cannot interfere.
 */
export async function loadEmbedder(modelDir: string, options: LoadEmbedderOptions = {}): Promise<Embedder> {
  configureOffline();
  const dir = resolve(modelDir);
  const config = await readJson(`${dir}/config.json`);
  if (config === null) throw new Error(`no embedding model at ${dir} (config.json missing)`);

  const extractor = (await pipeline('feature-extraction', dir, {
    local_files_only: true,
    device: 'cpu',
    ...(options.dtype ? { dtype: options.dtype } : {}),
    session_options: {
      ...(options.threads ? { intraOpNumThreads: options.threads } : {}),
      ...(options.lowMemory ? { enableCpuMemArena: false, enableMemPattern: false } : {}),
    },
  })) as unknown as FeatureExtractor;

  const batchSize = Math.max(1, options.batchSize ?? 64);

  // Same steps as FeatureExtractionPipeline._call (tokenize with padding and truncation, run the
  // model, take last_hidden_state), with masked mean pooling and normalization done here:
  // - the library's mean_pooling converts the BigInt mask once per element and dimension, which
  //   made it slower than tokenizer and model together (measured on the catalog);
  // - its normalize divides by the norm unconditionally, turning the zero vector of an
  //   all-unknown text into NaN, while here it stays zero.
  // test/embeddings/embedder.test.ts checks this equals pipeline(texts, {pooling:'mean', normalize:true}).
  const runBatch = async (batch: string[]): Promise<Float32Array[]> => {
    const inputs = extractor.tokenizer(batch, { padding: true, truncation: true });
    const outputs = await extractor.model(inputs);
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (!hidden) throw new Error(`model at ${dir} has no last_hidden_state output`);
    return meanPoolNormalize(hidden, inputs.attention_mask);
  };

  const embed = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
    const result: Float32Array[] = new Array(texts.length);
    for (let s = 0; s < order.length; s += batchSize) {
      const idx = order.slice(s, s + batchSize);
      // An empty string still tokenizes to [CLS][SEP].
      const vecs = await runBatch(idx.map((i) => texts[i]!));
      idx.forEach((i, k) => {
        result[i] = vecs[k]!;
      });
    }
    return result;
  };

  const dims = (await runBatch(['dimension probe']))[0]!.length;
  const nameOrPath = typeof config._name_or_path === 'string' && config._name_or_path ? config._name_or_path : basename(dir);
  const modelId = `${nameOrPath}${options.dtype ? `@${options.dtype}` : ''}`;

  return {
    modelId,
    dims,
    modelDir: dir,
    embed,
    isZero,
    dispose: () => extractor.dispose(),
  };
}

function meanPoolNormalize(hidden: TensorLike, mask: TensorLike): Float32Array[] {
  const [batch = 0, seq = 0, dims = 0] = hidden.dims;
  const h = hidden.data as Float32Array;
  const m = mask.data;
  const acc = new Float64Array(dims);
  const res: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    acc.fill(0);
    for (let s = 0; s < seq; s++) {
      // The mean's 1/count factor cancels in normalization, so only the masked sum matters.
      if (Number(m[b * seq + s]) === 0) continue;
      const o = (b * seq + s) * dims;
      for (let d = 0; d < dims; d++) acc[d]! += h[o + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += acc[d]! * acc[d]!;
    const out = new Float32Array(dims);
    if (norm > 1e-24) {
      const f = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) out[d] = acc[d]! * f;
    }
    res.push(out);
  }
  return res;
}

export function isZero(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return false;
  return true;
}

/** The text embedded for a listing (and the text the model is trained on). */
export function listingText(listing: { name?: string | null; description?: string | null }): string {
  const name = listing.name?.trim() ?? '';
  const description = listing.description?.trim() ?? '';
  return name && description ? `${name}. ${description}` : name || description;
}
