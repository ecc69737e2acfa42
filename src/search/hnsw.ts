// The approximate nearest-neighbour index of large catalogs: an HNSW graph (Malkov & Yashunin 2016) built
// and searched by usearch, a maintained native library whose npm package ships prebuilt binaries (no
// compiler, no download). It replaced the project's own IVF index, which was slower and less exact at every
// setting measured: docs/decisions/005-hnsw-over-ivf.md.
//
// The graph holds one row per distinct listing text, each under a key that stays the text's from one build to
// the next: a graph built from scratch numbers its rows 0..rows-1 (the embeddings stage's sorted order), and a
// graph updated from the previous build's copy keeps the keys of the texts it kept, drops those of the texts
// gone and gives new texts keys from `keys` on. A second file maps every document to its text's key, so
// listings sharing a text are found together. Search returns candidate documents; the caller ranks them
// exactly over the int8 vectors (VectorIndex.searchSubset), so scores and ties are those of exact search.
// docs/decisions/014-stable-graph-keys.md.
//
// In the cache (the stage's graph directory):
//   hnsw.usearch     the usearch index file (int8 vectors + graph)
//   hnsw-keys.bin    rows uint32 little-endian: row (the stage's sorted distinct texts) → key
//   hnsw.json        manifest: model id, rows, key span, rows removed since built from scratch, parameters, sha256
// In a build's runtime/embeddings (the graph file hard-linked from the cache):
//   hnsw.usearch     memory-mapped by the shim
//   hnsw-rows.bin    count uint32 little-endian: document → key
//   hnsw.json        the manifest with the document count and the rows file's sha256
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import type * as Usearch from 'usearch';
import { z } from 'zod';
import type { Quantized } from './vectors.ts';
import { fileSha256 } from '../artifacts/file-hash.ts';
import { linkOrCopy } from '../artifacts/link-file.ts';

// The package's ESM entry cannot locate its prebuilt binary; its CommonJS entry can.
const usearch = createRequire(import.meta.url)('usearch') as typeof Usearch;
type UsearchIndex = InstanceType<typeof usearch.Index>;

export const HNSW_FILE = 'hnsw.usearch';
export const HNSW_ROWS_FILE = 'hnsw-rows.bin';
export const HNSW_KEYS_FILE = 'hnsw-keys.bin';
export const HNSW_MANIFEST = 'hnsw.json';
export const HNSW_FORMAT = 'catalog-hnsw';

/**
 * Catalogs with at least this many listings get the graph. Exact search costs a fixed time a row; below this
 * size it stays fast enough, so small catalogs rank exactly and build without the graph's cost
 * (bench/records/2026-11-23-hnsw-vs-ivf.md).
 */
export const HNSW_MIN_ROWS = 50_000;

/**
 * Graph parameters: links per node (M, `connectivity`), candidate list while inserting (efConstruction) and while
 * searching (ef; a search for k > ef uses k). The graph is held to recall@10 0.95 against exact search at 100k;
 * M 24 with ef 240 reached it with margin in the time M 32 took without it, and makes a smaller graph
 * (bench/records/2026-11-24-hnsw-parameters.md); on the generated catalog's three-word requests it falls short, and
 * so does every cheaper setting (bench/records/2026-11-27-hnsw-build-scale.md). Its rows are int8, like the
 * vectors that rank its candidates, so the graph sees the scores it serves.
 */
export const HNSW_PARAMS: HnswParams = { connectivity: 24, expansionAdd: 256, expansionSearch: 240 };

export interface HnswParams {
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
}

/**
 * The graph parameters for a catalog of `rows` distinct texts. One setting for every size: no cheaper one held
 * recall at the sizes measured (bench/records/2026-11-27-hnsw-build-scale.md). A graph whose parameters differ from
 * these is built again rather than updated (updateHnswGraph), so bands by size can be added here safely.
 */
export function hnswParams(_rows: number): HnswParams {
  return HNSW_PARAMS;
}

/**
 * An updated graph keeps removed rows as deleted entries (usearch marks them and reuses their slots), which
 * costs search quality as they accumulate; past this share of its rows the graph is built again from scratch.
 */
export const HNSW_MAX_REMOVED_SHARE = 0.1;

const ManifestSchema = z.object({
  format: z.literal(HNSW_FORMAT),
  // Version 1 (before stable keys): every key is its row, no keys file; still read from builds being served.
  formatVersion: z.union([z.literal(1), z.literal(2)]),
  modelId: z.string(),
  dims: z.number().int().positive(),
  /** Rows in the graph (distinct texts). */
  rows: z.number().int().nonnegative(),
  /** Every key is below this (version 1: rows). */
  keys: z.number().int().nonnegative().optional(),
  /** Rows removed since the graph was built from scratch (version 1: 0). */
  removed: z.number().int().nonnegative().optional(),
  /** Documents mapped to rows (0 for a cached graph that is not yet tied to a build). */
  count: z.number().int().nonnegative(),
  connectivity: z.number().int().positive(),
  expansionAdd: z.number().int().positive(),
  expansionSearch: z.number().int().positive(),
  quantization: z.literal('i8'),
  sha256: z.object({ graph: z.string(), keys: z.string().optional(), rows: z.string().optional() }),
});
export type HnswManifest = z.infer<typeof ManifestSchema>;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function uint32Bytes(values: Uint32Array): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setUint32(i * 4, value, true));
  return bytes;
}

function readUint32s(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint32Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getUint32(i * 4, true));
}

function newIndex(dims: number, params: HnswParams): UsearchIndex {
  return new usearch.Index({
    dimensions: dims,
    metric: usearch.MetricKind.IP,
    quantization: usearch.ScalarKind.I8,
    connectivity: params.connectivity,
    expansion_add: params.expansionAdd,
    expansion_search: params.expansionSearch,
    multi: false,
  });
}

/**
 * Rows added per native call. Each call holds the event loop until it returns: small enough that the stages beside
 * this one (the site's renderers, the shards' compression) and the progress lines go on between calls at 1M rows,
 * large enough that starting the call's threads is no matter.
 */
export const HNSW_ADD_CHUNK = 2_048;

/**
 * Adds rows `rows[i]` of `q` under `keys[i]`, dequantized (so the graph sees what exact search scores), in chunks
 * that bound the float copy held at once, on every core, giving the event loop a turn after each chunk.
 */
async function addRows(
  index: UsearchIndex,
  q: Quantized,
  rows: ArrayLike<number>,
  keys: ArrayLike<number>,
  progress?: (done: number, total: number) => void,
): Promise<void> {
  const { dims } = q;
  const threads = availableParallelism();
  for (let start = 0; start < rows.length; start += HNSW_ADD_CHUNK) {
    const end = Math.min(rows.length, start + HNSW_ADD_CHUNK);
    const floats = new Float32Array((end - start) * dims);
    const chunkKeys = new BigUint64Array(end - start);
    for (let i = start; i < end; i++) {
      const r = rows[i]!;
      const scale = q.scales[r]!;
      for (let c = 0; c < dims; c++) floats[(i - start) * dims + c] = q.data[r * dims + c]! * scale;
      chunkKeys[i - start] = BigInt(keys[i]!);
    }
    index.add(chunkKeys, floats, threads);
    // Linking a large catalog's graph is the build's longest silent step without this.
    progress?.(end, rows.length);
    await nextTurn();
  }
}

async function saveGraph(dir: string, index: UsearchIndex, keyOfRow: Uint32Array, manifest: Omit<HnswManifest, 'sha256'>): Promise<HnswGraph> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, HNSW_FILE);
  index.save(path);
  const keyBytes = uint32Bytes(keyOfRow);
  await writeFile(join(dir, HNSW_KEYS_FILE), keyBytes);
  const written: HnswManifest = { ...manifest, sha256: { graph: await fileSha256(path), keys: sha256(keyBytes) } };
  await writeFile(join(dir, HNSW_MANIFEST), `${JSON.stringify(written, null, 2)}\n`);
  return { dir, manifest: written, keyOfRow };
}

/**
 * Builds the graph from scratch over quantized unit vectors, row r under key r, and writes hnsw.usearch,
 * hnsw-keys.bin and hnsw.json into `dir`. Uses every core; the graph is not byte-reproducible across runs
 * (insertion runs in parallel), which is why the stage caches it with the vectors it was built from.
 */
export async function writeHnswGraph(
  dir: string,
  q: Quantized,
  modelId: string,
  progress?: (done: number, total: number) => void,
  params: HnswParams = hnswParams(q.count),
): Promise<HnswGraph> {
  const index = newIndex(q.dims, params);
  const keyOfRow = Uint32Array.from({ length: q.count }, (_, r) => r);
  await addRows(index, q, keyOfRow, keyOfRow, progress);
  return saveGraph(dir, index, keyOfRow, {
    format: HNSW_FORMAT,
    formatVersion: 2,
    modelId,
    dims: q.dims,
    rows: q.count,
    keys: q.count,
    removed: 0,
    count: 0,
    ...params,
    quantization: 'i8',
  });
}

/** A graph in the cache: its manifest and each row's key. */
export interface HnswGraph {
  dir: string;
  manifest: HnswManifest;
  keyOfRow: Uint32Array;
}

/**
 * Writes into `dir` a copy of `previous` updated to the rows of `q`: rows of `previous` whose text is gone are
 * removed, rows of `q` that are new (`previousRow[r]` < 0) are added under fresh keys, the others keep their
 * keys. The previous graph's files are read, never modified. Undefined (nothing written) when a graph built
 * from scratch is due instead: other parameters for this catalog size, or removed rows past
 * HNSW_MAX_REMOVED_SHARE.
 */
export async function updateHnswGraph(
  dir: string,
  previous: HnswGraph,
  q: Quantized,
  previousRow: Int32Array,
  progress?: (done: number, total: number) => void,
): Promise<HnswGraph | undefined> {
  const old = previous.manifest;
  const params = hnswParams(q.count);
  if (old.formatVersion !== 2 || old.dims !== q.dims || old.connectivity !== params.connectivity || old.expansionAdd !== params.expansionAdd) return undefined;
  const kept = new Uint8Array(old.rows);
  for (const r of previousRow) if (r >= 0) kept[r] = 1;
  const gone: bigint[] = [];
  kept.forEach((k, r) => {
    if (!k) gone.push(BigInt(previous.keyOfRow[r]!));
  });
  const removed = (old.removed ?? 0) + gone.length;
  if (removed > HNSW_MAX_REMOVED_SHARE * q.count) return undefined;
  const index = newIndex(q.dims, { ...params });
  index.load(join(previous.dir, HNSW_FILE));
  if (gone.length > 0) index.remove(BigUint64Array.from(gone));
  const keyOfRow = new Uint32Array(q.count);
  const added: number[] = [];
  const addedKeys: number[] = [];
  let next = old.keys ?? old.rows;
  previousRow.forEach((p, r) => {
    if (p >= 0) keyOfRow[r] = previous.keyOfRow[p]!;
    else {
      keyOfRow[r] = next;
      added.push(r);
      addedKeys.push(next++);
    }
  });
  if (next > 0xffff_ffff) return undefined;
  await addRows(index, q, added, addedKeys, progress);
  if (index.size() !== q.count) throw new Error(`the updated HNSW graph holds ${index.size()} rows, expected ${q.count}`);
  return saveGraph(dir, index, keyOfRow, { ...old, formatVersion: 2, rows: q.count, keys: next, removed, count: 0, ...params });
}

async function readManifest(dir: string): Promise<HnswManifest | undefined> {
  try {
    return ManifestSchema.parse(JSON.parse(await readFile(join(dir, HNSW_MANIFEST), 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * The graph in `dir` for this model and row count whose files pass their checksums (written by writeHnswGraph or
 * updateHnswGraph); else undefined.
 */
export async function readHnswGraph(dir: string, expect: { modelId: string; rows: number }): Promise<HnswGraph | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest || manifest.formatVersion !== 2 || manifest.modelId !== expect.modelId || manifest.rows !== expect.rows || !manifest.sha256.keys)
    return undefined;
  try {
    const keyBytes = await readFile(join(dir, HNSW_KEYS_FILE));
    if (sha256(keyBytes) !== manifest.sha256.keys || keyBytes.length !== manifest.rows * 4) return undefined;
    if ((await fileSha256(join(dir, HNSW_FILE))) !== manifest.sha256.graph) return undefined;
    return { dir, manifest, keyOfRow: readUint32s(keyBytes) };
  } catch {
    return undefined;
  }
}

/**
 * Places a cached graph into a build's directory and maps its documents to keys (through their rows): the
 * graph file is hard-linked (copied across file systems), never rewritten.
 */
export async function writeHnswForDocuments(dir: string, graph: HnswGraph, rowOfDoc: Uint32Array): Promise<HnswManifest> {
  await linkOrCopy(join(graph.dir, HNSW_FILE), join(dir, HNSW_FILE));
  const bytes = uint32Bytes(rowOfDoc.map((row) => graph.keyOfRow[row]!));
  await writeFile(join(dir, HNSW_ROWS_FILE), bytes);
  const manifest: HnswManifest = { ...graph.manifest, count: rowOfDoc.length, sha256: { graph: graph.manifest.sha256.graph, rows: sha256(bytes) } };
  await writeFile(join(dir, HNSW_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The files of a build's graph (runtime/embeddings), manifest last. */
export const HNSW_BUILD_FILES = [HNSW_FILE, HNSW_ROWS_FILE, HNSW_MANIFEST] as const;

/**
 * The manifest and document → key map of a build's graph (runtime/embeddings) for this model and document count,
 * when its files pass their checks; else undefined (a file missing throws). The graph file is hashed as a stream, never
 * read into the heap.
 */
export async function checkHnswFiles(
  dir: string,
  expect: { modelId: string; count: number },
): Promise<{ manifest: HnswManifest; keyOfDoc: Uint32Array } | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest || manifest.modelId !== expect.modelId || manifest.count !== expect.count || !manifest.sha256.rows) return undefined;
  const [graphSum, rowBytes] = await Promise.all([fileSha256(join(dir, HNSW_FILE)), readFile(join(dir, HNSW_ROWS_FILE))]);
  if (graphSum !== manifest.sha256.graph || sha256(rowBytes) !== manifest.sha256.rows || rowBytes.length !== manifest.count * 4) return undefined;
  const keys = manifest.keys ?? manifest.rows;
  const keyOfDoc = readUint32s(rowBytes);
  if (keyOfDoc.some((key) => key >= keys)) return undefined;
  return { manifest, keyOfDoc };
}

/** The graph of a build's runtime/embeddings, or undefined when it has none (or it fails its checks). */
export async function readHnsw(dir: string, expect: { modelId: string; count: number }): Promise<HnswIndex | undefined> {
  const checked = await checkHnswFiles(dir, expect);
  if (!checked) return undefined;
  const { manifest, keyOfDoc } = checked;
  const keys = manifest.keys ?? manifest.rows;
  // The manifest's parameters: the graph file keeps its links, the search width is the reader's to set.
  const index = newIndex(manifest.dims, manifest);
  // Memory-mapped: pages are read on demand and shared with the page cache, not copied into the heap.
  index.view(join(dir, HNSW_FILE));
  if (index.size() !== manifest.rows) return undefined;
  return new HnswIndex(index, { rows: manifest.rows, keys, count: manifest.count }, keyOfDoc);
}

export class HnswIndex {
  /** Documents. */
  readonly count: number;
  /** Rows of the graph (distinct texts). */
  readonly rows: number;
  private readonly index: UsearchIndex;
  /** Documents of each key: docs[keyStart[key] .. keyStart[key + 1]), ascending. */
  private readonly keyStart: Uint32Array;
  private readonly docs: Uint32Array;

  constructor(index: UsearchIndex, shape: { rows: number; keys: number; count: number }, keyOfDoc: Uint32Array) {
    this.index = index;
    this.rows = shape.rows;
    this.count = shape.count;
    const keyStart = new Uint32Array(shape.keys + 1);
    for (const key of keyOfDoc) keyStart[key + 1]!++;
    for (let k = 0; k < shape.keys; k++) keyStart[k + 1]! += keyStart[k]!;
    const fill = keyStart.slice(0, shape.keys);
    const docs = new Uint32Array(this.count);
    keyOfDoc.forEach((key, doc) => {
      docs[fill[key]!++] = doc;
    });
    this.keyStart = keyStart;
    this.docs = docs;
  }

  /**
   * The documents of the `k` rows nearest the query (approximately), unordered; with `admit`, only the
   * documents it accepts. Rank them with exact scores (VectorIndex.searchSubset).
   */
  nearest(query: Float32Array, k: number, admit?: (doc: number) => boolean): number[] {
    const found = this.index.search(query, Math.max(1, Math.min(k, this.rows)), 1);
    const out: number[] = [];
    for (const key of found.keys) {
      const k = Number(key);
      for (let i = this.keyStart[k]!; i < this.keyStart[k + 1]!; i++) {
        const doc = this.docs[i]!;
        if (!admit || admit(doc)) out.push(doc);
      }
    }
    return out;
  }
}
