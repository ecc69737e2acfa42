// Guarantees: the numerical core of training is correct — pair counting, symmetric eigen-decomposition, orthonormalization and the randomized truncated eigen solver.
import { describe, expect, it } from 'vitest';
import {
  PairCounter,
  buildSymmetricCsr,
  csrMultiply,
  expandSymmetric,
  gaussianFill,
  orthonormalize,
  randomizedSymmetricEigen,
  seededRandom,
  symmetricEigen,
  transposeTimes,
} from '../../build/embeddings/linalg.ts';

function randomSymmetric(l: number, seed: number): Float64Array {
  const m = new Float64Array(l * l);
  gaussianFill(m, seed);
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) m[i * l + j] = m[j * l + i]!;
  return m;
}

describe('seededRandom', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    const c = seededRandom(2);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('PairCounter', () => {
  it('accumulates unordered pairs and survives growth', () => {
    const p = new PairCounter(4);
    const expected = new Map<string, number>();
    for (let t = 0; t < 5000; t++) {
      const i = (t * 37) % 300;
      const j = (t * 91) % 300;
      p.add(i, j, 0.5);
      const key = `${Math.min(i, j)},${Math.max(i, j)}`;
      expected.set(key, (expected.get(key) ?? 0) + 0.5);
    }
    const got = new Map<string, number>();
    p.forEach((i, j, w) => {
      expect(i).toBeLessThanOrEqual(j);
      got.set(`${i},${j}`, w);
    });
    expect(p.size).toBe(expected.size);
    expect(got).toEqual(expected);
  });
});

describe('symmetricEigen', () => {
  it.each([1, 2, 7, 40])('decomposes a random symmetric %i×%i matrix', (l) => {
    const m = randomSymmetric(l, l);
    const { values, vectors } = symmetricEigen(m, l);
    for (let c = 1; c < l; c++) expect(values[c]).toBeGreaterThanOrEqual(values[c - 1]!);
    for (let c = 0; c < l; c++) {
      for (let i = 0; i < l; i++) {
        let s = 0;
        for (let j = 0; j < l; j++) s += m[i * l + j]! * vectors[j * l + c]!;
        expect(s).toBeCloseTo(values[c]! * vectors[i * l + c]!, 9);
      }
    }
  });
});

describe('orthonormalize', () => {
  it('makes columns orthonormal and spans the same space', () => {
    const n = 500;
    const l = 20;
    const y = new Float64Array(n * l);
    gaussianFill(y, 5);
    const original = y.slice();
    const q = new Float64Array(n * l);
    orthonormalize(y, n, l, q, 2);
    const g = transposeTimes(q, q, n, l, l);
    for (let i = 0; i < l; i++) for (let j = 0; j < l; j++) expect(g[i * l + j]).toBeCloseTo(i === j ? 1 : 0, 10);
    // Projecting the original columns onto span(Q) loses nothing.
    const coef = transposeTimes(q, original, n, l, l);
    let residual = 0;
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < l; c++) {
        let s = 0;
        for (let k = 0; k < l; k++) s += q[r * l + k]! * coef[k * l + c]!;
        residual = Math.max(residual, Math.abs(s - original[r * l + c]!));
      }
    }
    expect(residual).toBeLessThan(1e-9);
  });

  it('zeroes dependent columns instead of producing NaN', () => {
    const n = 50;
    const l = 4;
    const y = new Float64Array(n * l);
    for (let r = 0; r < n; r++) {
      y[r * l] = r + 1;
      y[r * l + 1] = 2 * (r + 1); // parallel to column 0
      y[r * l + 2] = Math.sin(r);
      y[r * l + 3] = 0;
    }
    const q = new Float64Array(n * l);
    orthonormalize(y, n, l, q, 2);
    expect(q.every((x) => Number.isFinite(x))).toBe(true);
    let col1 = 0;
    for (let r = 0; r < n; r++) col1 += q[r * l + 1]! ** 2;
    expect(col1).toBe(0);
  });
});

describe('randomizedSymmetricEigen', () => {
  it('recovers the top eigenpairs of a low-rank sparse symmetric matrix', () => {
    const n = 400;
    const rank = 6;
    const base = new Float64Array(n * rank);
    gaussianFill(base, 11);
    const triples: [number, number, number][] = [];
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        let s = 0;
        for (let c = 0; c < rank; c++) s += base[i * rank + c]! * base[j * rank + c]! * (rank - c) ** 2;
        triples.push([i, j, s]);
      }
    }
    const csr = buildSymmetricCsr(n, (fn) => triples.forEach(([i, j, w]) => fn(i, j, w)));
    const k = 4;
    const r = randomizedSymmetricEigen(csr, k, { oversample: 6, powerIterations: 1, seed: 3 });
    const full = expandSymmetric(csr);
    const au = new Float64Array(n * k);
    csrMultiply(full, r.vectors, k, au);
    for (let c = 0; c < k; c++) {
      if (c > 0) expect(r.values[c]).toBeLessThanOrEqual(r.values[c - 1]!);
      let err = 0;
      let norm = 0;
      for (let i = 0; i < n; i++) {
        err = Math.max(err, Math.abs(Math.abs(au[i * k + c]!) - r.values[c]! * Math.abs(r.vectors[i * k + c]!)));
        norm += r.vectors[i * k + c]! ** 2;
      }
      expect(norm).toBeCloseTo(1, 9);
      expect(err / r.values[c]!).toBeLessThan(1e-8);
    }
  });

  it('expands an upper triangle into the full symmetric matrix', () => {
    const csr = buildSymmetricCsr(3, (fn) => {
      fn(0, 0, 1);
      fn(0, 2, 2);
      fn(1, 2, 3);
    });
    const full = expandSymmetric(csr);
    const dense = Array.from({ length: 3 }, () => [0, 0, 0]);
    for (let i = 0; i < 3; i++) for (let p = full.rowPtr[i]!; p < full.rowPtr[i + 1]!; p++) dense[i]![full.cols[p]!] = full.vals[p]!;
    expect(dense).toEqual([
      [1, 0, 2],
      [0, 0, 3],
      [2, 3, 0],
    ]);
  });
});
