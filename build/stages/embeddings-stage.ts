// The embeddings stage: one vector per listing, in document order, next to the model that made them,
// so the shim can embed a `semantic` query with the same model and search the listings' vectors.
//
//   <build>/runtime/embeddings/model/     the model, loaded by the shim: the distilled encoder committed in
//                                         models/use-lite-distilled (default), or the operator's
//                                         CATALOG_EMBEDDING_MODEL_DIR (Transformers.js layout)
//   <build>/runtime/embeddings/vectors.i8 + vectors.json   row i = document i (line i of runtime/listings.jsonl)
//   <build>/runtime/embeddings/hnsw.*                      approximate index, for catalogs of HNSW_MIN_ROWS or more
//   <build>/runtime/embeddings/source.json                 what they were made from (written last): the digest of the
//                                                          texts in document order, the cache entry and the code
//
// When the texts in document order, the model and the code are those recorded by the build being replaced, its
// files are what this build would write: they are hard-linked, once they pass their checks, and nothing is sorted,
// embedded or written again (a rebuild where only installs or other fields changed, with the order unmoved).
//
// Vectors are kept per distinct text, so a text is embedded once, and the graph is updated rather than rebuilt:
//   <data>/cache/embeddings/<corpus hash>/vectors-<key>/   vectors, one per distinct text in sorted order, and
//                                                          texts.bin (each row's text digest, checked by texts.json)
//   <data>/cache/embeddings/<corpus hash>/vectors-<key>/hnsw-<key>/  their HNSW graph (large catalogs)
// The corpus hash covers the sorted texts (a reorder by installs is not a change). Vectors are keyed by model
// id and the embedding code. When the texts change, the newest other entry of the same key supplies the
// vectors of every text it has (found by digest) and only the new texts are embedded; its graph is copied and
// updated (new texts added, texts gone removed, keys kept: src/search/hnsw.ts) unless the removals pass
// HNSW_MAX_REMOVED_SHARE, when the graph is built from scratch. Entries are written into a temporary directory
// and renamed, and read only when their files pass their checks, so a crashed run's leftovers are never used.
// Files reach the build by hard link (copy across file systems); they are never modified in place.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Stage } from './stage.ts';
import { readListingTexts } from './embeddings/listing-texts.ts';
import { RuntimeWriter } from '../runtime-writer.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR, readQuantized } from '../../src/artifacts/embeddings.ts';
import { fileSha256 } from '../../src/artifacts/file-hash.ts';
import { linkOrCopy } from '../../src/artifacts/link-file.ts';
import { RUNTIME_LISTINGS_FILE } from '../../src/artifacts/runtime-manifest.ts';
import {
  checkHnswFiles,
  HNSW_BUILD_FILES,
  HNSW_MIN_ROWS,
  readHnswGraph,
  updateHnswGraph,
  writeHnswForDocuments,
  writeHnswGraph,
  type HnswGraph,
} from '../../src/search/hnsw.ts';
import { loadEmbedder } from '../../src/embeddings/embedder.ts';
import { DEFAULT_ENCODER_DIR, loadStaticEncoder } from '../../src/embeddings/static-encoder.ts';
import {
  QUANTIZATION,
  quantize,
  VECTORS_FILE,
  VECTORS_FORMAT,
  VECTORS_MANIFEST,
  writeVectors,
  type Quantized,
  type VectorsManifest,
} from '../../src/search/vectors.ts';

/** This stage's own source files: a build made by other code is not linked from (its files may differ). */
const STAGE_SOURCES = ['./embeddings-stage.ts', './embeddings/listing-texts.ts'];

/** Corpus hashes kept in the cache: the one just used and the one before (a rebuild that is rolled back). */
const CACHE_KEEP = 2;
/** Texts per embed call: bounds the float vectors held at once (the rest are int8 already). */
export const EMBED_CHUNK = 4096;

/** Source files whose change must invalidate cached vectors (embedders, quantizer). */
const EMBEDDING_SOURCES = ['../../src/embeddings/embedder.ts', '../../src/search/vectors.ts', '../../src/embeddings/static-encoder.ts'];

export interface EmbeddingsReport {
  count: number;
  modelId: string;
  dims: number;
  /** 'distilled' (the committed encoder table) or 'configured' (CATALOG_EMBEDDING_MODEL_DIR). */
  model: 'distilled' | 'configured';
  /** 'linked': the build being replaced's files, made from the same texts in the same order by the same code. */
  vectors: 'embedded' | 'cached' | 'linked';
  /** Distinct texts embedded by this run: those no cached entry had a vector for. */
  embedded: number;
  /** The approximate index written: 'hnsw', or 'none' when the catalog is small enough for exact search. */
  approximate: 'hnsw' | 'none';
  /** The graph: 'built' from scratch, 'updated' from a copy of the previous entry's, 'cached' as it was, or 'none'. */
  graph: 'built' | 'updated' | 'cached' | 'linked' | 'none';
  timingsMs: Record<string, number>;
}

export interface EmbeddingsOptions {
  /** The build's runtime/: its writer (the build's own, in the stage), or its path (a writer is made over it). */
  runtimeDir: RuntimeWriter | string;
  /** <data>/cache/embeddings */
  cacheDir: string;
  /** The runtime/embeddings of the build being replaced (read only): its files are linked when they are this build's. */
  previous?: string | undefined;
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
 * sorted, with their rows), the int8 vectors of both orders and the HNSW graph; on a rebuild after a text changed,
 * also the previous entry's int8 vectors and its texts' digests (16 bytes each, and a map of them).
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
      previous: ctx.previousBuild && join(ctx.previousBuild, 'runtime', EMBEDDINGS_DIR),
      progress: (done: number, total: number) => ctx.progress(done, total, 'listings embedded'),
      graphProgress: (done: number, total: number) => ctx.progress(done, total, 'vectors linked into the HNSW graph'),
    });
    ctx.log(
      `embeddings: ${report.count} listings, ${report.modelId} (${report.dims} dims), model ${report.model}, vectors ${report.vectors}` +
        (report.approximate === 'hnsw' ? ', HNSW graph' : ''),
    );
  },
};

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

/** Each cached vectors entry's texts: row → the first 16 bytes of its text's sha256, and their checksum. */
const TEXTS_FILE = 'texts.bin';
const TEXTS_MANIFEST = 'texts.json';
const DIGEST_BYTES = 16;

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digests of sorted texts, as bytes (TEXTS_FILE) and as map keys. */
function textDigests(sorted: readonly string[]): { bytes: Uint8Array; key(row: number): string } {
  const bytes = new Uint8Array(sorted.length * DIGEST_BYTES);
  sorted.forEach((text, r) => bytes.set(createHash('sha256').update(text).digest().subarray(0, DIGEST_BYTES), r * DIGEST_BYTES));
  return { bytes, key: (row) => Buffer.from(bytes.buffer, bytes.byteOffset + row * DIGEST_BYTES, DIGEST_BYTES).toString('latin1') };
}

/** A vectors entry's rows and text digests when both pass their checks (an entry a crashed run left is not used). */
async function readEntry(dir: string, modelId: string): Promise<{ vectors: Quantized; digests: Uint8Array } | undefined> {
  try {
    const texts = JSON.parse(await readFile(join(dir, TEXTS_MANIFEST), 'utf8')) as { rows?: unknown; sha256?: unknown };
    const [read, digests] = await Promise.all([readQuantized(dir, modelId), readFile(join(dir, TEXTS_FILE))]);
    if (!read || read.q.count !== texts.rows || digests.length !== read.q.count * DIGEST_BYTES || sha256Hex(digests) !== texts.sha256) return undefined;
    return { vectors: read.q, digests };
  } catch {
    return undefined;
  }
}

/**
 * The cached vectors of these texts, or undefined: the entry's directory is named by the hash of the sorted texts
 * (the corpus hash), so an entry that passes its checks and has their count holds them, and their digests need not
 * be computed to compare.
 */
async function readCachedVectors(dir: string, modelId: string, rows: number): Promise<Quantized | undefined> {
  const entry = await readEntry(dir, modelId);
  return entry?.vectors.count === rows ? entry.vectors : undefined;
}

/** What a build's vectors and graph were made from (SOURCE_FILE, see the header). */
interface EmbeddingsSource {
  /** sha256 of the listings' texts in document order (readListingTexts). */
  texts: string;
  count: number;
  /** The cache entry: corpus hash, and the vectors' and graph's directory names (model and code). */
  corpus: string;
  vectors: string;
  graph: string | null;
  /** The code that orders the rows and writes these files (this stage's own source). */
  stage: string;
}
const SOURCE_FILE = 'source.json';
const sourceJson = (source: EmbeddingsSource) => `${JSON.stringify(source)}\n`;

/** Whether a build's vectors files are of this model and count and pass their checksum (hashed as a stream). */
async function vectorsIntact(dir: string, modelId: string, count: number): Promise<boolean> {
  const manifest = JSON.parse(await readFile(join(dir, VECTORS_MANIFEST), 'utf8')) as VectorsManifest;
  if (manifest.format !== VECTORS_FORMAT || manifest.quantization !== QUANTIZATION || manifest.modelId !== modelId || manifest.count !== count) return false;
  const path = join(dir, VECTORS_FILE);
  return (await stat(path)).size === manifest.layout.bytes && (await fileSha256(path)) === manifest.sha256;
}

/**
 * Links the vectors and graph of the build being replaced (`from`) into `to` when that build recorded the same
 * texts, count, model and code, and its files pass their checks; returns what it recorded, or undefined (nothing
 * linked) otherwise. Its files are only read.
 */
async function linkPrevious(from: string, to: string, want: Omit<EmbeddingsSource, 'corpus'>, modelId: string): Promise<EmbeddingsSource | undefined> {
  let recorded: EmbeddingsSource;
  try {
    recorded = JSON.parse(await readFile(join(from, SOURCE_FILE), 'utf8')) as EmbeddingsSource;
    if (!(Object.keys(want) as (keyof typeof want)[]).every((key) => recorded[key] === want[key])) return undefined;
    if (!(await vectorsIntact(from, modelId, want.count))) return undefined;
    if (want.graph !== null && !(await checkHnswFiles(from, { modelId, count: want.count }))) return undefined;
  } catch {
    // A build from before source.json, or one whose files are gone or unreadable: this build makes its own.
    return undefined;
  }
  // A link that fails fails the build, as a failed write would: a file half linked is never written through.
  for (const file of [VECTORS_FILE, VECTORS_MANIFEST, ...(want.graph === null ? [] : HNSW_BUILD_FILES)]) await linkOrCopy(join(from, file), join(to, file));
  await writeFile(join(to, SOURCE_FILE), sourceJson({ ...want, corpus: recorded.corpus }));
  return recorded;
}

/** The newest other corpus entry with vectors of this model and code that pass their checks. */
async function previousEntry(
  cacheDir: string,
  corpusHash: string,
  vectorsDirName: string,
  modelId: string,
): Promise<{ dir: string; vectors: Quantized; rowOfDigest: Map<string, number> } | undefined> {
  const entries = await Promise.all(
    (await readdir(cacheDir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && /^[0-9a-f]{64}$/.test(e.name) && e.name !== corpusHash)
      .map(async (e) => ({ name: e.name, mtime: (await stat(join(cacheDir, e.name))).mtimeMs })),
  );
  for (const { name } of entries.sort((a, b) => b.mtime - a.mtime)) {
    const dir = join(cacheDir, name, vectorsDirName);
    const entry = await readEntry(dir, modelId);
    if (!entry) continue;
    const rowOfDigest = new Map<string, number>();
    const { digests } = entry;
    for (let r = 0; r < entry.vectors.count; r++)
      rowOfDigest.set(Buffer.from(digests.buffer, digests.byteOffset + r * DIGEST_BYTES, DIGEST_BYTES).toString('latin1'), r);
    return { dir, vectors: entry.vectors, rowOfDigest };
  }
  return undefined;
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
  const { texts, digest: textsDigest } = await readListingTexts(join(out.root, RUNTIME_LISTINGS_FILE));
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
  let embedded = 0;
  let graphMade: EmbeddingsReport['graph'] = 'none';
  try {
    const vectorsKey = createHash('sha256')
      .update(embedder.modelId)
      .update('\u0000')
      .update(await sourcesHash(EMBEDDING_SOURCES))
      .digest('hex')
      .slice(0, 16);
    const vectorsDirName = `vectors-${vectorsKey}`;
    const approximate: EmbeddingsReport['approximate'] = texts.length >= (options.hnswMinRows ?? HNSW_MIN_ROWS) ? 'hnsw' : 'none';
    const graphDirName = approximate === 'hnsw' ? `hnsw-${(await sourcesHash(['../../src/search/hnsw.ts'])).slice(0, 16)}` : null;
    const want = {
      texts: textsDigest,
      count: texts.length,
      vectors: vectorsDirName,
      graph: graphDirName,
      stage: (await sourcesHash(STAGE_SOURCES)).slice(0, 16),
    };
    const linked = options.previous === undefined ? undefined : await linkPrevious(options.previous, outDir, want, embedder.modelId);
    if (linked) {
      // The cache entry stays the newest, as if this build had read it (it may be gone: nothing then to keep).
      await pruneCache(options.cacheDir, linked.corpus).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
      lap('link');
      return {
        count: texts.length,
        modelId: embedder.modelId,
        dims: embedder.dims,
        model,
        vectors: 'linked',
        embedded: 0,
        approximate,
        graph: approximate === 'hnsw' ? 'linked' : 'none',
        timingsMs: timings,
      };
    }

    // Distinct texts in code-unit order (the default sort's, for strings, and faster than a comparator): the model
    // and the cached vectors depend only on the set of texts.
    const sorted = [...new Set(texts)].sort();
    const row = new Map<string, number>();
    sorted.forEach((text, i) => row.set(text, i));
    const corpus = createHash('sha256');
    for (const text of sorted) corpus.update(text).update('\u0000');
    const corpusHash = corpus.digest('hex');
    const entryDir = join(options.cacheDir, corpusHash);
    await mkdir(entryDir, { recursive: true });
    const cachedVectors = join(entryDir, vectorsDirName);
    let distinct = await readCachedVectors(cachedVectors, embedder.modelId, sorted.length);
    lap('cache');
    // The newest other entry of this model and code: its vectors (by text) and graph (by key) are reused.
    let previous: Awaited<ReturnType<typeof previousEntry>>;
    let previousRow: Int32Array | undefined;
    if (!distinct) {
      const digests = textDigests(sorted);
      previous = await previousEntry(options.cacheDir, corpusHash, vectorsDirName, embedder.modelId);
      const dims = embedder.dims;
      const data = new Int8Array(sorted.length * dims);
      const scales = new Float32Array(sorted.length);
      previousRow = new Int32Array(sorted.length).fill(-1);
      const fresh: number[] = [];
      for (let r = 0; r < sorted.length; r++) {
        const p = previous?.rowOfDigest.get(digests.key(r));
        if (p === undefined) fresh.push(r);
        else previousRow[r] = p;
      }
      if (previous) {
        const old = previous.vectors;
        previousRow.forEach((p, r) => {
          if (p < 0) return;
          data.set(old.data.subarray(p * dims, (p + 1) * dims), r * dims);
          scales[r] = old.scales[p]!;
        });
      }
      vectors = 'embedded';
      embedded = fresh.length;
      for (let start = 0; start < fresh.length; start += EMBED_CHUNK) {
        const rows = fresh.slice(start, start + EMBED_CHUNK);
        const chunk = quantize(await embedder.embed(rows.map((r) => sorted[r]!)), dims);
        rows.forEach((r, i) => {
          data.set(chunk.data.subarray(i * dims, (i + 1) * dims), r * dims);
          scales[r] = chunk.scales[i]!;
        });
        options.progress?.(Math.min(fresh.length, start + EMBED_CHUNK), fresh.length);
        // The distilled encoder embeds on this thread: the stages beside this one and the progress lines go on between chunks.
        await nextTurn();
      }
      distinct = { dims, count: sorted.length, data, scales };
      const made = distinct;
      await atomicDir(cachedVectors, async (tmp) => {
        await writeVectors(tmp, made, { modelId: embedder.modelId });
        await writeFile(join(tmp, TEXTS_FILE), digests.bytes);
        // Written last: an entry whose texts file does not match it is not used.
        await writeFile(join(tmp, TEXTS_MANIFEST), `${JSON.stringify({ rows: sorted.length, sha256: sha256Hex(digests.bytes) })}\n`);
      });
    }
    lap('embed');

    // Document order: row doc = the distinct row of its text (rows are copied as int8, never re-quantized).
    const dims = distinct.dims;
    const data = new Int8Array(texts.length * dims);
    const scales = new Float32Array(texts.length);
    const rowOfDoc = new Uint32Array(texts.length);
    for (let doc = 0; doc < texts.length; doc++) {
      const r = row.get(texts[doc]!)!;
      rowOfDoc[doc] = r;
      data.set(distinct.data.subarray(r * dims, (r + 1) * dims), doc * dims);
      scales[doc] = distinct.scales[r]!;
    }
    await writeVectors(outDir, { dims, count: texts.length, data, scales }, { modelId: embedder.modelId });
    lap('write');

    if (graphDirName !== null) {
      // Built over the distinct texts (cached with their vectors), then mapped to documents like the rows.
      const graphDir = join(cachedVectors, graphDirName);
      const expect = { modelId: embedder.modelId, rows: distinct.count };
      let graph = await readHnswGraph(graphDir, expect);
      graphMade = 'cached';
      if (!graph) {
        const rows = distinct;
        // A small change updates a copy of the previous entry's graph; a large one (or none before) builds anew.
        const before =
          previous && previousRow
            ? await readHnswGraph(join(previous.dir, graphDirName), { modelId: embedder.modelId, rows: previous.vectors.count })
            : undefined;
        let made: HnswGraph | undefined;
        await atomicDir(graphDir, async (tmp) => {
          made = before && previousRow ? await updateHnswGraph(tmp, before, rows, previousRow, options.graphProgress) : undefined;
          graphMade = made ? 'updated' : 'built';
          made ??= await writeHnswGraph(tmp, rows, embedder.modelId, options.graphProgress);
        });
        graph = { ...made!, dir: graphDir };
      }
      await writeHnswForDocuments(outDir, graph, rowOfDoc);
      lap('hnsw');
    }
    await writeFile(join(outDir, SOURCE_FILE), sourceJson({ ...want, corpus: corpusHash }));
    await pruneCache(options.cacheDir, corpusHash);
    return { count: texts.length, modelId: embedder.modelId, dims, model, vectors, embedded, approximate, graph: graphMade, timingsMs: timings };
  } finally {
    await embedder.dispose();
  }
}
