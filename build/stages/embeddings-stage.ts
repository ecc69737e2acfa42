// The embeddings stage: one vector per listing, in document order, next to the model that made them,
// so the shim can embed a `semantic` query with the same model and search the listings' vectors.
//
//   <build>/runtime/embeddings/model/     the model, loaded by the shim: the distilled encoder committed in
//                                         models/use-lite-distilled (default), or the operator's
//                                         CATALOG_EMBEDDING_MODEL_DIR (Transformers.js layout)
//   <build>/runtime/embeddings/vectors.i8 + vectors.json   row i = document i (line i of runtime/listings.jsonl)
//   <build>/runtime/embeddings/hnsw.*                      approximate index, for catalogs of HNSW_MIN_ROWS or more
//
// Embedding and the graph are skipped when the catalog text has not changed:
//   <data>/cache/embeddings/<corpus hash>/vectors-<key>/   vectors, one per distinct text in sorted order
//   <data>/cache/embeddings/<corpus hash>/vectors-<key>/hnsw-<key>/  their HNSW graph (large catalogs)
// The corpus hash covers the sorted texts (a reorder by installs is not a change). Vectors are keyed by model
// id and the embedding code. Files reach the build by hard link (copy across file systems); they are never
// modified in place.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Stage } from './stage.ts';
import { RuntimeWriter } from '../runtime-writer.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR, readQuantized } from '../../src/artifacts/embeddings.ts';
import { RUNTIME_LISTINGS_FILE } from '../../src/artifacts/runtime-manifest.ts';
import { HNSW_MIN_ROWS, readHnswGraph, writeHnswForDocuments, writeHnswGraph } from '../../src/search/hnsw.ts';
import { listingText, loadEmbedder } from '../../src/embeddings/embedder.ts';
import { DEFAULT_ENCODER_DIR, loadStaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { quantize, writeVectors } from '../../src/search/vectors.ts';

/** Corpus hashes kept in the cache: the one just used and the one before (a rebuild that is rolled back). */
const CACHE_KEEP = 2;
/** Texts per embed call: bounds the float vectors held at once (the rest are int8 already). */
const EMBED_CHUNK = 4096;

/** Source files whose change must invalidate cached vectors (embedders, quantizer). */
const EMBEDDING_SOURCES = ['../../src/embeddings/embedder.ts', '../../src/search/vectors.ts', '../../src/embeddings/static-encoder.ts'];

export interface EmbeddingsReport {
  count: number;
  modelId: string;
  dims: number;
  /** 'distilled' (the committed encoder table) or 'configured' (CATALOG_EMBEDDING_MODEL_DIR). */
  model: 'distilled' | 'configured';
  vectors: 'embedded' | 'cached';
  /** The approximate index written: 'hnsw', or 'none' when the catalog is small enough for exact search. */
  approximate: 'hnsw' | 'none';
  timingsMs: Record<string, number>;
}

export interface EmbeddingsOptions {
  /** The build's runtime/: its writer (the build's own, in the stage), or its path (a writer is made over it). */
  runtimeDir: RuntimeWriter | string;
  /** <data>/cache/embeddings */
  cacheDir: string;
  /** The operator's model directory (Config.embeddingModelDir, Transformers.js layout); unset: the distilled encoder. */
  modelDir?: string | undefined;
  progress?: (done: number, total: number) => void;
  /** Progress of the HNSW graph's construction, in vectors linked. */
  graphProgress?: (done: number, total: number) => void;
  /** Catalogs with at least this many listings also get the approximate index (default HNSW_MIN_ROWS). */
  hnswMinRows?: number;
}

/**
 * What the embeddings stage holds at most: every listing's text twice (in document order and the distinct ones
 * sorted, with their rows), the int8 vectors of both orders and the HNSW graph.
 */
const EMBEDDINGS_BASE_BYTES = 128 * 2 ** 20;
const EMBEDDINGS_BYTES_PER_LISTING = 2048;

export const EMBEDDINGS_STAGE: Stage = {
  name: 'embeddings',
  runtime: true,
  // The runtime's listings; it writes runtime/embeddings, which no other stage reads.
  after: ['index'],
  memoryBytes: (listings) => EMBEDDINGS_BASE_BYTES + EMBEDDINGS_BYTES_PER_LISTING * listings,
  async run(ctx) {
    const report = await buildEmbeddings({
      runtimeDir: ctx.runtimeOut,
      cacheDir: join(ctx.dirs.dataDir, 'cache', EMBEDDINGS_DIR),
      modelDir: ctx.embeddingModelDir,
      progress: (done: number, total: number) => ctx.progress(done, total, 'listings embedded'),
      graphProgress: (done: number, total: number) => ctx.progress(done, total, 'vectors linked into the HNSW graph'),
    });
    ctx.log(
      `embeddings: ${report.count} listings, ${report.modelId} (${report.dims} dims), model ${report.model}, vectors ${report.vectors}` +
        (report.approximate === 'hnsw' ? ', HNSW graph' : ''),
    );
  },
};

async function readTexts(listingsPath: string): Promise<string[]> {
  const texts: string[] = [];
  const lines = createInterface({ input: createReadStream(listingsPath, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.length === 0) continue;
    const listing = JSON.parse(line) as { name?: string | null; description?: string | null };
    texts.push(listingText(listing));
  }
  return texts;
}

async function sourcesHash(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\u0000')
      .update(await readFile(join(import.meta.dirname, file)))
      .update('\u0000');
  return hash.digest('hex');
}

/** Writes into `<dir>.tmp-<pid>` and renames, so a cache entry is complete or absent. */
async function atomicDir(dir: string, fill: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await fill(tmp);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
}

/** Drops all but the newest CACHE_KEEP corpus entries (by last use). */
async function pruneCache(cacheDir: string, used: string): Promise<void> {
  const now = new Date();
  await utimes(join(cacheDir, used), now, now);
  const entries = await Promise.all(
    (await readdir(cacheDir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && /^[0-9a-f]{64}$/.test(e.name))
      .map(async (e) => ({ name: e.name, mtime: (await stat(join(cacheDir, e.name))).mtimeMs })),
  );
  const others = entries.filter((e) => e.name !== used).sort((a, b) => b.mtime - a.mtime);
  for (const entry of others.slice(CACHE_KEEP - 1)) await rm(join(cacheDir, entry.name), { recursive: true, force: true });
}

/** Embeds every listing of a runtime directory (see the header) and writes runtime/embeddings. */
export async function buildEmbeddings(options: EmbeddingsOptions): Promise<EmbeddingsReport> {
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (name: string) => {
    const t = performance.now();
    timings[name] = Math.round(t - t0);
    t0 = t;
  };

  const out = typeof options.runtimeDir === 'string' ? new RuntimeWriter(options.runtimeDir) : options.runtimeDir;
  const texts = await readTexts(join(out.root, RUNTIME_LISTINGS_FILE));
  // Distinct texts in code-unit order: the model and the cached vectors depend only on the set of texts.
  const sorted = [...new Set(texts)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const row = new Map<string, number>();
  sorted.forEach((text, i) => row.set(text, i));
  const corpus = createHash('sha256');
  for (const text of sorted) corpus.update(text).update('\u0000');
  const corpusHash = corpus.digest('hex');
  const entryDir = join(options.cacheDir, corpusHash);
  await mkdir(entryDir, { recursive: true });
  lap('read');

  const outDir = out.folder(EMBEDDINGS_DIR);
  const modelOut = join(outDir, MODEL_SUBDIR);
  let model: EmbeddingsReport['model'];
  let embedder: { modelId: string; dims: number; embed(texts: readonly string[]): Promise<Float32Array[]>; dispose(): Promise<void> };
  const configured = options.modelDir?.trim();
  if (configured) {
    // An operator's (pretrained) model is copied into the build, so the shim loads exactly what embedded the listings.
    model = 'configured';
    await out.linkTree(resolve(configured), join(EMBEDDINGS_DIR, MODEL_SUBDIR));
    embedder = await loadEmbedder(modelOut);
  } else {
    model = 'distilled';
    await out.linkTree(DEFAULT_ENCODER_DIR, join(EMBEDDINGS_DIR, MODEL_SUBDIR));
    const encoder = await loadStaticEncoder(modelOut);
    embedder = {
      modelId: encoder.modelId,
      dims: encoder.dims,
      embed: async (texts) => texts.map((text) => encoder.embed(text)),
      dispose: async () => undefined,
    };
  }
  lap('model');

  let vectors: EmbeddingsReport['vectors'] = 'cached';
  try {
    const vectorsKey = createHash('sha256')
      .update(embedder.modelId)
      .update('\u0000')
      .update(await sourcesHash(EMBEDDING_SOURCES))
      .digest('hex')
      .slice(0, 16);
    const cachedVectors = join(entryDir, `vectors-${vectorsKey}`);
    let distinct = (await readQuantized(cachedVectors, embedder.modelId))?.q;
    if (!distinct || distinct.count !== sorted.length) {
      vectors = 'embedded';
      const dims = embedder.dims;
      const data = new Int8Array(sorted.length * dims);
      const scales = new Float32Array(sorted.length);
      for (let start = 0; start < sorted.length; start += EMBED_CHUNK) {
        const chunk = quantize(await embedder.embed(sorted.slice(start, start + EMBED_CHUNK)), dims);
        data.set(chunk.data, start * dims);
        scales.set(chunk.scales, start);
        options.progress?.(Math.min(sorted.length, start + EMBED_CHUNK), sorted.length);
      }
      distinct = { dims, count: sorted.length, data, scales };
      const made = distinct;
      await atomicDir(cachedVectors, async (tmp) => {
        await writeVectors(tmp, made, { modelId: embedder.modelId });
      });
    }
    lap('embed');

    // Document order: row doc = the distinct row of its text (rows are copied as int8, never re-quantized).
    const dims = distinct.dims;
    const data = new Int8Array(texts.length * dims);
    const scales = new Float32Array(texts.length);
    for (let doc = 0; doc < texts.length; doc++) {
      const r = row.get(texts[doc]!)!;
      data.set(distinct.data.subarray(r * dims, (r + 1) * dims), doc * dims);
      scales[doc] = distinct.scales[r]!;
    }
    await writeVectors(outDir, { dims, count: texts.length, data, scales }, { modelId: embedder.modelId });
    lap('write');

    let approximate: EmbeddingsReport['approximate'] = 'none';
    if (texts.length >= (options.hnswMinRows ?? HNSW_MIN_ROWS)) {
      // Built over the distinct texts (cached with their vectors), then mapped to documents like the rows.
      const graphDir = join(cachedVectors, `hnsw-${(await sourcesHash(['../../src/search/hnsw.ts'])).slice(0, 16)}`);
      let graph = await readHnswGraph(graphDir, { modelId: embedder.modelId, rows: distinct.count });
      if (!graph) {
        const rows = distinct;
        await atomicDir(graphDir, async (tmp) => {
          await mkdir(tmp, { recursive: true });
          await writeHnswGraph(tmp, rows, embedder.modelId, options.graphProgress);
        });
        graph = (await readHnswGraph(graphDir, { modelId: embedder.modelId, rows: distinct.count }))!;
      }
      const rowOfDoc = new Uint32Array(texts.length);
      for (let doc = 0; doc < texts.length; doc++) rowOfDoc[doc] = row.get(texts[doc]!)!;
      await writeHnswForDocuments(outDir, graphDir, graph, rowOfDoc);
      approximate = 'hnsw';
      lap('hnsw');
    }
    await pruneCache(options.cacheDir, corpusHash);
    return { count: texts.length, modelId: embedder.modelId, dims, model, vectors, approximate, timingsMs: timings };
  } finally {
    await embedder.dispose();
  }
}
