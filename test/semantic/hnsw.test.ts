// Guarantees the HNSW graph (src/search/hnsw.ts) finds nearly the exact top 10 on the embedded snapshot's real
// vectors and requests (recall@10 ≥ 0.95, candidates ranked by exact scores as the listing search does), finds
// every listing that shares a text with a found row, keeps to a filter, and is refused when its files do not
// match their manifest or another model's vectors.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR, readQuantized } from '../../src/artifacts/embeddings.ts';
import {
  HNSW_ADD_CHUNK,
  HNSW_FILE,
  HNSW_ROWS_FILE,
  readHnsw,
  readHnswGraph,
  writeHnswForDocuments,
  writeHnswGraph,
  type HnswGraph,
  type HnswIndex,
} from '../../src/search/hnsw.ts';
import { VectorIndex, type Quantized } from '../../src/search/vectors.ts';
import { loadStaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { vectorCandidates } from '../../src/search/ranking/fusion.ts';
import { SEMANTIC_QUERIES } from '../../bench/semantic.ts';

const dir = join(await sharedBuildDir(), 'runtime', EMBEDDINGS_DIR);
let rows: Quantized;
let modelId: string;
let exact: VectorIndex;
let queries: Float32Array[];
let tmp: string;
let graphDir: string;
let graph: HnswGraph;
let ann: HnswIndex;
/** Every document its own row, except documents 1 and 2, which share row 0's text (as duplicate listings do). */
let rowOfDoc: Uint32Array;
/** The graph's construction progress, as reported. */
const progress: [number, number][] = [];
/** Per progress report after the first: whether an immediate queued at the report before it ran in between. */
const turns: boolean[] = [];

beforeAll(async () => {
  const read = (await readQuantized(dir))!;
  rows = read.q;
  modelId = read.manifest.modelId;
  exact = new VectorIndex(rows, modelId);
  const encoder = await loadStaticEncoder(join(dir, MODEL_SUBDIR));
  queries = [...SEMANTIC_QUERIES, 'postgres', 'slack', 'kubernetes', 'pdf', 'image generation'].map((text) => encoder.embed(text));
  tmp = mkdtempSync(join(tmpdir(), 'catalog-hnsw-'));
  graphDir = join(tmp, 'graph');
  mkdirSync(graphDir);
  let turned: boolean | undefined;
  graph = await writeHnswGraph(graphDir, rows, modelId, (done, total) => {
    progress.push([done, total]);
    if (turned !== undefined) turns.push(turned);
    turned = false;
    setImmediate(() => (turned = true));
  });
  rowOfDoc = Uint32Array.from({ length: rows.count }, (_, doc) => doc);
  await writeHnswForDocuments(tmp, graph, rowOfDoc);
  ann = (await readHnsw(tmp, { modelId, count: rows.count }))!;
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('HNSW approximate search', () => {
  it('reports its construction as it goes, ending at every vector linked', () => {
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual([rows.count, rows.count]);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThan(progress[i - 1]![0]);
  });

  it('gives the event loop a turn between chunks, so the stages beside it and the progress lines go on', () => {
    expect(rows.count).toBeGreaterThan(2 * HNSW_ADD_CHUNK);
    expect(turns.length).toBe(progress.length - 1);
    expect(turns.every(Boolean)).toBe(true);
  });

  it('finds at least 95% of the exact top 10, ranked by exact scores', () => {
    expect(ann).toBeDefined();
    let found = 0;
    for (const q of queries) {
      const want = exact.search(q, 10).map((h) => h.index);
      const got = new Set(vectorCandidates({ vectors: exact, ann }, q, undefined, 200).slice(0, 10));
      found += want.filter((doc) => got.has(doc)).length;
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns candidates the caller ranks exactly: same scores as exact search for the same documents', () => {
    const q = queries[0]!;
    const ranked = exact.searchSubset(q, ann.nearest(q, 50), 50);
    const scores = exact.scoreAll(q);
    ranked.forEach((hit, i) => {
      expect(hit.score).toBeCloseTo(scores[hit.index]!, 6);
      if (i > 0) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(hit.score);
    });
  });

  it('keeps to a filter', () => {
    const admit = (doc: number) => doc % 3 === 0;
    for (const q of queries.slice(0, 5)) {
      const docs = ann.nearest(q, 300, admit);
      expect(docs.length).toBeGreaterThan(50);
      for (const doc of docs) expect(admit(doc)).toBe(true);
    }
    // Through the listing search's helper: a broad filter (one in two) goes through the graph, a narrow one
    // (one in ten) is searched exactly; both answer only admitted documents, best first.
    for (const step of [2, 10]) {
      const admitted = Array.from({ length: Math.floor(rows.count / step) }, (_, i) => i * step);
      const docs = vectorCandidates({ vectors: exact, ann }, queries[1]!, admitted, 20);
      expect(docs).toHaveLength(20);
      for (const doc of docs) expect(doc % step).toBe(0);
    }
  });
});

describe('hnsw files', () => {
  it('finds every document that shares a row with a found one', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'catalog-hnsw-shared-'));
    try {
      const map = Uint32Array.from(rowOfDoc);
      map[1] = 0;
      map[2] = 0;
      await writeHnswForDocuments(shared, graph, map);
      const index = (await readHnsw(shared, { modelId, count: rows.count }))!;
      // Row 0's own vector is its nearest row.
      const q = new Float32Array(rows.dims);
      for (let c = 0; c < rows.dims; c++) q[c] = rows.data[c]! * rows.scales[0]!;
      expect(index.nearest(q, 1).sort((a, b) => a - b)).toEqual([0, 1, 2]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it('still reads a build written before stable keys (format version 1: every key its row)', async () => {
    const older = mkdtempSync(join(tmpdir(), 'catalog-hnsw-v1-'));
    try {
      const manifest = await writeHnswForDocuments(older, graph, rowOfDoc);
      const { keys: _keys, removed: _removed, ...rest } = manifest;
      writeFileSync(join(older, 'hnsw.json'), JSON.stringify({ ...rest, formatVersion: 1 }));
      const index = (await readHnsw(older, { modelId, count: rows.count }))!;
      expect(index.nearest(queries[0]!, 10)).toEqual(ann.nearest(queries[0]!, 10));
    } finally {
      rmSync(older, { recursive: true, force: true });
    }
  });

  it('is refused for another model, another catalog size or a corrupted file', async () => {
    expect(await readHnswGraph(graphDir, { modelId, rows: rows.count })).toBeDefined();
    expect(await readHnswGraph(graphDir, { modelId: 'another-model', rows: rows.count })).toBeUndefined();
    expect(await readHnsw(tmp, { modelId, count: rows.count + 1 })).toBeUndefined();
    const corrupt = mkdtempSync(join(tmpdir(), 'catalog-hnsw-corrupt-'));
    try {
      await writeHnswForDocuments(corrupt, graph, rowOfDoc);
      const rowsFile = readFileSync(join(corrupt, HNSW_ROWS_FILE));
      rowsFile[0] = rowsFile[0]! ^ 1;
      writeFileSync(join(corrupt, HNSW_ROWS_FILE), rowsFile);
      expect(await readHnsw(corrupt, { modelId, count: rows.count })).toBeUndefined();
      rmSync(join(corrupt, HNSW_FILE));
      writeFileSync(join(corrupt, HNSW_FILE), 'corrupted');
      expect(await readHnswGraph(corrupt, { modelId, rows: rows.count })).toBeUndefined();
    } finally {
      rmSync(corrupt, { recursive: true, force: true });
    }
  });
});
