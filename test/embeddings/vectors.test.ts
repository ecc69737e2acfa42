// Guarantees: int8 quantization and the vectors.i8/vectors.json artifact round-trip, and exact top-k search (full and subset) returns what brute force returns.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gaussianFill } from '../../src/search/random.ts';
import { QUANTIZATION, VECTORS_FILE, VECTORS_MANIFEST, VectorIndex, quantize, readVectors, writeVectors } from '../../src/search/vectors.ts';

/** Clustered unit vectors, so that neighbourhoods are meaningful (like real embeddings). */
function clustered(n: number, dims: number, seed: number): Float32Array[] {
  const centers = new Float64Array(20 * dims);
  gaussianFill(centers, seed);
  const noise = new Float64Array(n * dims);
  gaussianFill(noise, seed + 1);
  const out: Float32Array[] = [];
  for (let r = 0; r < n; r++) {
    const c = r % 20;
    const v = new Float32Array(dims);
    let s = 0;
    for (let d = 0; d < dims; d++) {
      v[d] = centers[c * dims + d]! + 0.7 * noise[r * dims + d]!;
      s += v[d]! * v[d]!;
    }
    for (let d = 0; d < dims; d++) v[d]! /= Math.sqrt(s);
    out.push(v);
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function bruteForce(vectors: readonly Float32Array[], query: Float32Array, k: number, rows?: number[]) {
  const candidates = rows ?? vectors.map((_, i) => i);
  return candidates
    .map((index) => ({ index, score: dot(vectors[index]!, query) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, k);
}

describe('quantize', () => {
  it('keeps each component within half a quantization step and maps zero to zero', () => {
    const vs = clustered(50, 32, 1);
    vs.push(new Float32Array(32));
    const q = quantize(vs, 32);
    for (let r = 0; r < vs.length; r++) {
      for (let c = 0; c < 32; c++) {
        expect(Math.abs(q.data[r * 32 + c]! * q.scales[r]! - vs[r]![c]!)).toBeLessThanOrEqual(q.scales[r]! / 2 + 1e-7);
      }
    }
    expect(q.scales[50]).toBe(0);
    expect(q.data.subarray(50 * 32).every((x) => x === 0)).toBe(true);
  });

  it('rejects vectors of the wrong length', () => {
    expect(() => quantize([new Float32Array(3)], 4)).toThrow(/dims/);
  });
});

describe.each([
  [2001, 256],
  [777, 384],
  [101, 10],
])('VectorIndex over %i vectors × %i dims', (n, dims) => {
  const vectors = clustered(n, dims, n);
  const index = new VectorIndex(quantize(vectors, dims), 'test-model');
  const dequantized = vectors.map((_, i) => index.vector(i));
  const queries = [0, 1, Math.floor(n / 2), n - 1].map((i) => {
    const v = vectors[i]!.slice();
    v[0]! += 0.05; // near, not identical to, a stored vector
    return v;
  });

  it.each([1, 10, 50])('search(k=%i) equals brute force over the quantized vectors', (k) => {
    for (const q of queries) {
      const got = index.search(q, k);
      const want = bruteForce(dequantized, q, k);
      expect(got.map((h) => h.index)).toEqual(want.map((h) => h.index));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 5));
    }
  });

  it('finds nearly the float top-10 (quantization error is small)', () => {
    let overlap = 0;
    for (const q of queries) {
      const got = new Set(index.search(q, 10).map((h) => h.index));
      const want = bruteForce(vectors, q, 10);
      for (const h of want) if (got.has(h.index)) overlap++;
      for (const h of index.search(q, 10)) expect(Math.abs(h.score - dot(vectors[h.index]!, q))).toBeLessThan(0.02);
    }
    expect(overlap / (10 * queries.length)).toBeGreaterThanOrEqual(0.9);
  });

  it('searchSubset equals brute force restricted to the subset, in any id order', () => {
    const rows = Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 === 1);
    const shuffled = [...rows].reverse().concat(rows.slice(0, 5)); // unordered, with duplicates
    for (const q of queries) {
      const got = index.searchSubset(q, shuffled, 10);
      const want = bruteForce(dequantized, q, 10, rows);
      expect(got.map((h) => h.index)).toEqual(want.map((h) => h.index));
      // Same arithmetic as search(): a row scores identically in both.
      const all = new Map(index.search(q, n).map((h) => [h.index, h.score]));
      for (const h of got) expect(h.score).toBe(all.get(h.index));
    }
  });

  it('handles k beyond the candidate count and empty inputs', () => {
    expect(index.search(queries[0]!, n + 10)).toHaveLength(n);
    expect(index.search(queries[0]!, 0)).toEqual([]);
    expect(index.searchSubset(queries[0]!, [], 5)).toEqual([]);
    expect(index.searchSubset(queries[0]!, [3, 3, 3], 5)).toHaveLength(1);
    expect(() => index.searchSubset(queries[0]!, [n], 1)).toThrow(RangeError);
    expect(() => index.search(new Float32Array(dims + 1), 1)).toThrow(/dims/);
  });

  it('scoreAll agrees with search', () => {
    const scores = index.scoreAll(queries[1]!);
    for (const h of index.search(queries[1]!, 5)) expect(scores[h.index]).toBeCloseTo(h.score, 6);
  });
});

describe('ties', () => {
  it('rank the lower row first, in search and searchSubset', () => {
    const v = clustered(1, 16, 9)[0]!;
    const other = clustered(2, 16, 10)[1]!;
    const index = new VectorIndex(quantize([other, v, other, v, v], 16), 'm');
    expect(index.search(v, 3).map((h) => h.index)).toEqual([1, 3, 4]);
    expect(index.searchSubset(v, [4, 3, 1, 0], 2).map((h) => h.index)).toEqual([1, 3]);
  });
});

describe('vectors.i8 + vectors.json artifact', () => {
  let dir: string;
  const dims = 256;
  const vectors = clustered(1003, dims, 42);
  const ids = vectors.map((_, i) => `listing:${i}`);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalog-vectors-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('round-trips: same manifest, same search results', async () => {
    const q = quantize(vectors, dims);
    const manifest = await writeVectors(dir, q, { modelId: 'catalog-static-256d-abc', ids });
    expect(manifest).toMatchObject({ modelId: 'catalog-static-256d-abc', dims, count: 1003, quantization: QUANTIZATION, ids });
    // count × dims int8, padded to 4 bytes, then one float32 scale per vector.
    expect((await readFile(join(dir, VECTORS_FILE))).length).toBe(Math.ceil((1003 * dims) / 4) * 4 + 1003 * 4);
    expect(JSON.parse(await readFile(join(dir, VECTORS_MANIFEST), 'utf8'))).toEqual(manifest);
    const loaded = await readVectors(dir, { expectModelId: 'catalog-static-256d-abc' });
    const inMemory = new VectorIndex(q, manifest.modelId);
    expect(loaded.ids).toEqual(ids);
    expect(loaded.count).toBe(1003);
    for (const probe of [0, 500, 1002]) expect(loaded.search(vectors[probe]!, 10)).toEqual(inMemory.search(vectors[probe]!, 10));
  });

  it('refuses vectors built with another model', async () => {
    await expect(readVectors(dir, { expectModelId: 'other-model' })).rejects.toThrow(/other-model/);
  });

  it('detects a corrupted vectors.i8', async () => {
    const path = join(dir, VECTORS_FILE);
    const bytes = await readFile(path);
    bytes[100]! ^= 0x55;
    await writeFile(path, bytes);
    await expect(readVectors(dir)).rejects.toThrow(/checksum/);
  });
});
