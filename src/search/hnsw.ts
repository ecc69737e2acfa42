// The approximate nearest-neighbour index of large catalogs: an HNSW graph (Malkov & Yashunin 2016) built
// and searched by usearch, a maintained native library whose npm package ships prebuilt binaries (no
// compiler, no download). It replaced the project's own IVF index, which was slower and less exact at every
// setting measured: docs/decisions/005-hnsw-over-ivf.md.
//
// The graph holds one row per distinct listing text (the embeddings stage's cache order, so an unchanged
// catalog reuses it), each row under its row number as key; a second file maps every document to its
// row, so listings sharing a text are found together. Search returns candidate documents; the caller ranks
// them exactly over the int8 vectors (VectorIndex.searchSubset), so scores and ties are those of exact search.
//
//   hnsw.usearch     the usearch index file (int8 vectors + graph), memory-mapped by the shim
//   hnsw-rows.bin    count uint32 little-endian: document → row
//   hnsw.json        manifest: model id, rows, count, graph parameters, sizes and sha256 of both files
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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
 * M 24 with ef 240 reaches it with margin in the time M 32 took without it, and makes a smaller graph
 * (bench/records/2026-11-24-hnsw-parameters.md). Its rows are int8, like the vectors that rank its candidates,
 * so the graph sees the scores it serves.
 */
export const HNSW_PARAMS: HnswParams = { connectivity: 24, expansionAdd: 256, expansionSearch: 240 };

export interface HnswParams {
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
}

/** The graph parameters for a catalog of `rows` distinct texts. */
export function hnswParams(rows: number): HnswParams {
  void rows;
  return HNSW_PARAMS;
}

const ManifestSchema = z.object({
  format: z.literal(HNSW_FORMAT),
  formatVersion: z.literal(1),
  modelId: z.string(),
  dims: z.number().int().positive(),
  /** Rows in the graph (distinct texts). */
  rows: z.number().int().nonnegative(),
  /** Documents mapped to rows (0 for a cached graph that is not yet tied to a build). */
  count: z.number().int().nonnegative(),
  connectivity: z.number().int().positive(),
  expansionAdd: z.number().int().positive(),
  expansionSearch: z.number().int().positive(),
  quantization: z.literal('i8'),
  sha256: z.object({ graph: z.string(), rows: z.string().optional() }),
});
export type HnswManifest = z.infer<typeof ManifestSchema>;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
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
 * Builds the graph over quantized unit vectors (dequantized, so the graph sees what exact search scores) and
 * writes hnsw.usearch + hnsw.json into `dir`. Uses every core; the graph is not byte-reproducible across
 * runs (insertion runs in parallel), which is why the stage caches it with the vectors it was built from.
 */
export async function writeHnswGraph(
  dir: string,
  q: Quantized,
  modelId: string,
  progress?: (done: number, total: number) => void,
  params: HnswParams = hnswParams(q.count),
): Promise<HnswManifest> {
  const { dims, count } = q;
  const index = newIndex(dims, params);
  const keys = new BigUint64Array(count);
  // Chunks bound the float copy held at once: a whole catalog's would grow with it.
  const CHUNK = 16_384;
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    const rows = new Float32Array((end - start) * dims);
    for (let r = start; r < end; r++) {
      const scale = q.scales[r]!;
      for (let c = 0; c < dims; c++) rows[(r - start) * dims + c] = q.data[r * dims + c]! * scale;
      keys[r] = BigInt(r);
    }
    index.add(keys.subarray(start, end), rows, availableParallelism());
    // Linking a large catalog's graph is the build's longest silent step without this.
    progress?.(end, count);
  }
  await mkdir(dir, { recursive: true });
  const path = join(dir, HNSW_FILE);
  index.save(path);
  const manifest: HnswManifest = {
    format: HNSW_FORMAT,
    formatVersion: 1,
    modelId,
    dims,
    rows: count,
    count: 0,
    connectivity: params.connectivity,
    expansionAdd: params.expansionAdd,
    expansionSearch: params.expansionSearch,
    quantization: 'i8',
    sha256: { graph: await fileSha256(path) },
  };
  await writeFile(join(dir, HNSW_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function readManifest(dir: string): Promise<HnswManifest | undefined> {
  try {
    return ManifestSchema.parse(JSON.parse(await readFile(join(dir, HNSW_MANIFEST), 'utf8')));
  } catch {
    return undefined;
  }
}

/** The manifest of a graph in `dir` for this model and row count whose file passes its checksum; else undefined. */
export async function readHnswGraph(dir: string, expect: { modelId: string; rows: number }): Promise<HnswManifest | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest || manifest.modelId !== expect.modelId || manifest.rows !== expect.rows) return undefined;
  try {
    if ((await fileSha256(join(dir, HNSW_FILE))) !== manifest.sha256.graph) return undefined;
  } catch {
    return undefined;
  }
  return manifest;
}

/**
 * Places a cached graph (from writeHnswGraph) into a build's directory and maps its documents to rows:
 * the graph file is hard-linked (copied across file systems), never rewritten.
 */
export async function writeHnswForDocuments(dir: string, graphDir: string, graph: HnswManifest, rowOfDoc: Uint32Array): Promise<HnswManifest> {
  await linkOrCopy(join(graphDir, HNSW_FILE), join(dir, HNSW_FILE));
  const bytes = new Uint8Array(rowOfDoc.length * 4);
  const view = new DataView(bytes.buffer);
  rowOfDoc.forEach((row, doc) => view.setUint32(doc * 4, row, true));
  await writeFile(join(dir, HNSW_ROWS_FILE), bytes);
  const manifest: HnswManifest = { ...graph, count: rowOfDoc.length, sha256: { graph: graph.sha256.graph, rows: sha256(bytes) } };
  await writeFile(join(dir, HNSW_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The graph of a build's runtime/embeddings, or undefined when it has none (or it fails its checks). */
export async function readHnsw(dir: string, expect: { modelId: string; count: number }): Promise<HnswIndex | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest || manifest.modelId !== expect.modelId || manifest.count !== expect.count || !manifest.sha256.rows) return undefined;
  // The graph is memory-mapped below; hashed as a stream, it is never read into the heap as well.
  const [graphSum, rowBytes] = await Promise.all([fileSha256(join(dir, HNSW_FILE)), readFile(join(dir, HNSW_ROWS_FILE))]);
  if (graphSum !== manifest.sha256.graph || sha256(rowBytes) !== manifest.sha256.rows || rowBytes.length !== manifest.count * 4) return undefined;
  const rowOfDoc = new Uint32Array(manifest.count);
  const view = new DataView(rowBytes.buffer, rowBytes.byteOffset, rowBytes.byteLength);
  for (let doc = 0; doc < manifest.count; doc++) {
    rowOfDoc[doc] = view.getUint32(doc * 4, true);
    if (rowOfDoc[doc]! >= manifest.rows) return undefined;
  }
  // The manifest's parameters: the graph file keeps its links, the search width is the reader's to set.
  const index = newIndex(manifest.dims, manifest);
  // Memory-mapped: pages are read on demand and shared with the page cache, not copied into the heap.
  index.view(join(dir, HNSW_FILE));
  if (index.size() !== manifest.rows) return undefined;
  return new HnswIndex(index, manifest, rowOfDoc);
}

export class HnswIndex {
  /** Documents. */
  readonly count: number;
  /** Rows of the graph (distinct texts). */
  readonly rows: number;
  private readonly index: UsearchIndex;
  /** Documents of each row: docs[rowStart[r] .. rowStart[r + 1]), ascending. */
  private readonly rowStart: Uint32Array;
  private readonly docs: Uint32Array;

  constructor(index: UsearchIndex, manifest: Pick<HnswManifest, 'rows' | 'count'>, rowOfDoc: Uint32Array) {
    this.index = index;
    this.rows = manifest.rows;
    this.count = manifest.count;
    const rowStart = new Uint32Array(this.rows + 1);
    for (const row of rowOfDoc) rowStart[row + 1]!++;
    for (let r = 0; r < this.rows; r++) rowStart[r + 1]! += rowStart[r]!;
    const fill = rowStart.slice(0, this.rows);
    const docs = new Uint32Array(this.count);
    rowOfDoc.forEach((row, doc) => {
      docs[fill[row]!++] = doc;
    });
    this.rowStart = rowStart;
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
      const row = Number(key);
      for (let i = this.rowStart[row]!; i < this.rowStart[row + 1]!; i++) {
        const doc = this.docs[i]!;
        if (!admit || admit(doc)) out.push(doc);
      }
    }
    return out;
  }
}
