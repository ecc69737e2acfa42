// Guarantees the IVF approximate index finds nearly the exact top 10 on the embedded snapshot's real
// vectors and requests (recall@10 ≥ 0.95), answers exact search identically to VectorIndex, keeps to a
// filter, and round-trips through ivf.bin with its checksum checked.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EMBEDDINGS_DIR, MODEL_SUBDIR, readQuantized } from '../../src/artifacts/embeddings.ts';
import { IVF_FILE, IVF_PROBE_SHARE, IvfIndex, readIvf, trainIvf, writeIvf, type IvfModel } from '../../src/search/ivf.ts';
import { VectorIndex, type Quantized } from '../../src/search/vectors.ts';
import { loadStaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { SEMANTIC_QUERIES } from '../../bench/semantic.ts';

const dir = join(inject('catalogBuildDir'), 'runtime', EMBEDDINGS_DIR);
let rows: Quantized;
let modelId: string;
let model: IvfModel;
let ivf: IvfIndex;
let exact: VectorIndex;
let queries: Float32Array[];

beforeAll(async () => {
  const read = (await readQuantized(dir))!;
  rows = read.q;
  modelId = read.manifest.modelId;
  model = trainIvf(rows);
  ivf = new IvfIndex(model, rows, Math.ceil(model.lists * IVF_PROBE_SHARE));
  exact = new VectorIndex(rows, modelId);
  const encoder = await loadStaticEncoder(join(dir, MODEL_SUBDIR));
  queries = [...SEMANTIC_QUERIES, 'postgres', 'slack', 'kubernetes', 'pdf', 'image generation'].map((text) => encoder.embed(text));
}, 120_000);

describe('IVF approximate search', () => {
  it('finds at least 90% of the exact top 10 while scoring a fraction of the rows', () => {
    let found = 0;
    for (const q of queries) {
      const want = exact.search(q, 10).map((h) => h.index);
      const got = new Set(ivf.approximate(q, 10).map((h) => h.index));
      found += want.filter((doc) => got.has(doc)).length;
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
    expect(ivf.nprobe).toBeLessThanOrEqual(Math.ceil(ivf.lists / 4));
  });

  it('returns exact scores, best first', () => {
    const q = queries[0]!;
    const hits = ivf.approximate(q, 50);
    const scores = exact.scoreAll(q);
    hits.forEach((hit, i) => {
      expect(hit.score).toBeCloseTo(scores[hit.index]!, 6);
      if (i > 0) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hit.score);
    });
  });

  it('keeps to a filter, probing more lists when it is narrow', () => {
    const admitted = (row: number) => row % 7 === 0;
    for (const q of queries.slice(0, 5)) {
      const hits = ivf.approximate(q, 20, { admit: admitted, widen: 7 });
      expect(hits).toHaveLength(20);
      for (const hit of hits) expect(admitted(hit.index)).toBe(true);
    }
  });

  it('answers exact search and searchSubset like VectorIndex, in document numbers', () => {
    // Listings with identical text tie exactly; among ties the order may differ (list order vs row order),
    // so compare the scores, and the listings above the last tied score.
    const same = (a: Array<{ index: number; score: number }>, b: Array<{ index: number; score: number }>) => {
      expect(a.map((h) => h.score)).toEqual(b.map((h) => h.score));
      const last = b[b.length - 1]!.score;
      const above = (hits: typeof a) => new Set(hits.filter((h) => h.score > last).map((h) => h.index));
      expect(above(a)).toEqual(above(b));
    };
    const subset = Array.from({ length: 3000 }, (_, i) => i * 9);
    for (const q of queries.slice(0, 5)) {
      same(ivf.search(q, 25), exact.search(q, 25));
      same(ivf.searchSubset(q, subset, 25), exact.searchSubset(q, subset, 25));
    }
  });
});

describe('ivf.bin', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'catalog-ivf-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('round-trips, and is refused for another model or a corrupted file', async () => {
    await writeIvf(tmp, model, modelId);
    const back = await readIvf(tmp, { modelId, count: rows.count });
    expect(back?.model.assign).toEqual(model.assign);
    expect(back?.model.centroids).toEqual(model.centroids);
    expect(await readIvf(tmp, { modelId: 'another-model', count: rows.count })).toBeUndefined();
    writeFileSync(join(tmp, IVF_FILE), 'corrupted');
    expect(await readIvf(tmp, { modelId, count: rows.count })).toBeUndefined();
  });
});
