// Sparse co-occurrence counting and a randomized truncated eigen/SVD solver in plain TypeScript.
// Everything is deterministic: a seeded PRNG, fixed loop orders, no Math.random, no threads.
// Index expressions carry `!` for noUncheckedIndexedAccess: every index here is in range by
// construction, and the assertion is erased at run time (no checks added to the hot loops).

/** xorshift128+-style 32-bit generator (sfc32), seeded; deterministic across runs. */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const next = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

/** Standard normal samples via Box–Muller on the seeded generator. */
export function gaussianFill(out: Float64Array, seed: number): void {
  const rnd = seededRandom(seed);
  for (let i = 0; i < out.length; i += 2) {
    let u = rnd();
    if (u < 1e-300) u = 1e-300;
    const v = rnd();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}

const EMPTY = 0xffffffff;

/**
 * Open-addressing hash map from an unordered token pair (i <= j < 65535) to a float weight.
 * Keys pack into one uint32, so 10M+ distinct pairs cost ~8 bytes each at load 0.5, far below
 * what a JS Map would need (and a Map stops at 2^24 entries).
 */
export class PairCounter {
  private keys: Uint32Array;
  private vals: Float32Array;
  private mask: number;
  size = 0;

  constructor(initialBits = 20) {
    const cap = 1 << initialBits;
    this.keys = new Uint32Array(cap).fill(EMPTY);
    this.vals = new Float32Array(cap);
    this.mask = cap - 1;
  }

  add(i: number, j: number, w: number): void {
    const key = i <= j ? ((i << 16) | j) >>> 0 : ((j << 16) | i) >>> 0;
    const keys = this.keys;
    let h = Math.imul(key, 0x9e3779b1) >>> 0;
    const mask = this.mask;
    for (;;) {
      h &= mask;
      const k = keys[h];
      if (k === key) {
        this.vals[h]! += w;
        return;
      }
      if (k === EMPTY) {
        keys[h] = key;
        this.vals[h] = w;
        if (++this.size * 2 > mask) this.grow();
        return;
      }
      h++;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    const cap = oldKeys.length * 2;
    this.keys = new Uint32Array(cap).fill(EMPTY);
    this.vals = new Float32Array(cap);
    this.mask = cap - 1;
    const keys = this.keys;
    const mask = this.mask;
    for (let s = 0; s < oldKeys.length; s++) {
      const key = oldKeys[s]!;
      if (key === EMPTY) continue;
      let h = Math.imul(key, 0x9e3779b1) >>> 0;
      for (;;) {
        h &= mask;
        if (keys[h] === EMPTY) break;
        h++;
      }
      keys[h] = key;
      this.vals[h] = oldVals[s]!;
    }
  }

  /** Calls fn for every stored pair (i <= j), in slot order (deterministic for equal input). */
  forEach(fn: (i: number, j: number, w: number) => void): void {
    const keys = this.keys;
    const vals = this.vals;
    for (let s = 0; s < keys.length; s++) {
      const key = keys[s]!;
      if (key !== EMPTY) fn(key >>> 16, key & 0xffff, vals[s]!);
    }
  }
}

/**
 * Symmetric sparse matrix stored as its upper triangle (diagonal included) in CSR form.
 * multiply() applies the full symmetric matrix.
 */
export interface SymmetricCsr {
  n: number;
  rowPtr: Int32Array;
  cols: Int32Array;
  vals: Float32Array;
}

/** Builds the CSR upper triangle from (i <= j, value) triples, columns sorted within rows. */
export function buildSymmetricCsr(
  n: number,
  forEach: (fn: (i: number, j: number, w: number) => void) => void,
): SymmetricCsr {
  const counts = new Int32Array(n + 1);
  let nnz = 0;
  forEach((i) => {
    counts[i + 1]!++;
    nnz++;
  });
  const rowPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i]! + counts[i + 1]!;
  const fill = rowPtr.slice(0, n);
  const cols = new Int32Array(nnz);
  const vals = new Float32Array(nnz);
  forEach((i, j, w) => {
    const p = fill[i]!++;
    cols[p] = j;
    vals[p] = w;
  });
  // Sort each row by column so the layout does not depend on hash slot order.
  for (let i = 0; i < n; i++) {
    const s = rowPtr[i]!;
    const e = rowPtr[i + 1]!;
    if (e - s < 2) continue;
    const idx = Array.from({ length: e - s }, (_, k) => s + k);
    idx.sort((x, y) => cols[x]! - cols[y]!);
    const c2 = idx.map((k) => cols[k]);
    const v2 = idx.map((k) => vals[k]);
    for (let k = 0; k < c2.length; k++) {
      cols[s + k] = c2[k]!;
      vals[s + k] = v2[k]!;
    }
  }
  return { n, rowPtr, cols, vals };
}

/** Both triangles of a symmetric upper-triangle CSR, as a plain CSR (rows sorted). */
export function expandSymmetric(a: SymmetricCsr): SymmetricCsr {
  const { n, rowPtr, cols, vals } = a;
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    for (let p = rowPtr[i]!; p < rowPtr[i + 1]!; p++) {
      counts[i + 1]!++;
      if (cols[p] !== i) counts[cols[p]! + 1]!++;
    }
  }
  for (let i = 0; i < n; i++) counts[i + 1]! += counts[i]!;
  const fill = counts.slice(0, n);
  const nnz = counts[n]!;
  const c2 = new Int32Array(nnz);
  const v2 = new Float32Array(nnz);
  // Row i receives (i, j>=i) entries from its own row and (i, j<i) from earlier rows' mirrors;
  // visiting rows in order writes the mirrored (smaller) columns first, so rows come out sorted.
  for (let i = 0; i < n; i++) {
    for (let p = rowPtr[i]!; p < rowPtr[i + 1]!; p++) {
      const j = cols[p]!;
      if (j !== i) {
        const q = fill[j]!++;
        c2[q] = i;
        v2[q] = vals[p]!;
      }
    }
    for (let p = rowPtr[i]!; p < rowPtr[i + 1]!; p++) {
      const q = fill[i]!++;
      c2[q] = cols[p]!;
      v2[q] = vals[p]!;
    }
  }
  return { n, rowPtr: counts, cols: c2, vals: v2 };
}

/**
 * Y (n×l, row-major) = A X for a full CSR matrix A. Each output row is accumulated in place while
 * it is hot in cache, two non-zeros per step to halve the accumulator traffic.
 */
export function csrMultiply(a: SymmetricCsr, x: Float64Array, l: number, y: Float64Array): void {
  const { n, rowPtr, cols, vals } = a;
  y.fill(0, 0, n * l);
  for (let i = 0; i < n; i++) {
    const yi = i * l;
    const end = rowPtr[i + 1]!;
    let p = rowPtr[i]!;
    for (; p + 1 < end; p += 2) {
      const v0 = vals[p]!;
      const v1 = vals[p + 1]!;
      const x0 = cols[p]! * l;
      const x1 = cols[p + 1]! * l;
      for (let c = 0; c < l; c++) y[yi + c]! += v0 * x[x0 + c]! + v1 * x[x1 + c]!;
    }
    if (p < end) {
      const v0 = vals[p]!;
      const x0 = cols[p]! * l;
      for (let c = 0; c < l; c++) y[yi + c]! += v0 * x[x0 + c]!;
    }
  }
}

/** Y (n×l, row-major) = A X for symmetric A stored as an upper triangle. */
export function symMultiply(a: SymmetricCsr, x: Float64Array, l: number, y: Float64Array): void {
  csrMultiply(expandSymmetric(a), x, l, y);
}

/**
 * C (l×m) = Aᵀ B for row-major A (n×l) and B (n×m). Four rows at a time, so each row of C is
 * loaded once per four input rows: the l×m accumulator does not fit in cache, and this loop is
 * memory-bound otherwise. With symmetric=true (AᵀB known to be symmetric) only the upper triangle
 * is computed and then mirrored.
 */
export function transposeTimes(
  a: Float64Array,
  b: Float64Array,
  n: number,
  l: number,
  m: number,
  symmetric = false,
): Float64Array {
  const c = new Float64Array(l * m);
  let r = 0;
  for (; r + 4 <= n; r += 4) {
    const oa0 = r * l;
    const oa1 = oa0 + l;
    const oa2 = oa1 + l;
    const oa3 = oa2 + l;
    const ob0 = r * m;
    const ob1 = ob0 + m;
    const ob2 = ob1 + m;
    const ob3 = ob2 + m;
    for (let i = 0; i < l; i++) {
      const a0 = a[oa0 + i]!;
      const a1 = a[oa1 + i]!;
      const a2 = a[oa2 + i]!;
      const a3 = a[oa3 + i]!;
      if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
      const ci = i * m;
      for (let j = symmetric ? i : 0; j < m; j++) {
        c[ci + j]! += a0 * b[ob0 + j]! + a1 * b[ob1 + j]! + a2 * b[ob2 + j]! + a3 * b[ob3 + j]!;
      }
    }
  }
  for (; r < n; r++) {
    const oa = r * l;
    const ob = r * m;
    for (let i = 0; i < l; i++) {
      const a0 = a[oa + i]!;
      if (a0 === 0) continue;
      const ci = i * m;
      for (let j = symmetric ? i : 0; j < m; j++) c[ci + j]! += a0 * b[ob + j]!;
    }
  }
  if (symmetric) for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) c[i * m + j] = c[j * m + i]!;
  return c;
}

/**
 * out (n×m) = A (n×l) · B (l×m), row-major, four output rows per pass over B. With upper=true, B
 * is upper triangular and the zero half is skipped.
 */
export function multiplyRows(
  a: Float64Array,
  n: number,
  l: number,
  b: Float64Array,
  m: number,
  out: Float64Array,
  upper = false,
): void {
  out.fill(0, 0, n * m);
  let r = 0;
  for (; r + 4 <= n; r += 4) {
    const oa = r * l;
    const oc0 = r * m;
    const oc1 = oc0 + m;
    const oc2 = oc1 + m;
    const oc3 = oc2 + m;
    for (let k = 0; k < l; k++) {
      const a0 = a[oa + k]!;
      const a1 = a[oa + l + k]!;
      const a2 = a[oa + 2 * l + k]!;
      const a3 = a[oa + 3 * l + k]!;
      if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
      const bk = k * m;
      for (let j = upper ? k : 0; j < m; j++) {
        const bv = b[bk + j]!;
        out[oc0 + j]! += a0 * bv;
        out[oc1 + j]! += a1 * bv;
        out[oc2 + j]! += a2 * bv;
        out[oc3 + j]! += a3 * bv;
      }
    }
  }
  for (; r < n; r++) {
    const oa = r * l;
    const oc = r * m;
    for (let k = 0; k < l; k++) {
      const a0 = a[oa + k]!;
      if (a0 === 0) continue;
      const bk = k * m;
      for (let j = upper ? k : 0; j < m; j++) out[oc + j]! += a0 * b[bk + j]!;
    }
  }
}

/**
 * Orthonormalizes the columns of Y (n×l) by Cholesky QR: G = YᵀY = RᵀR, Q = Y R⁻¹. `passes`=2
 * (CholeskyQR2) restores orthogonality to machine precision; one pass is enough between power
 * iterations. A rank-deficient Y (possible with a tiny corpus) gets its dependent columns zeroed.
 * Returns the orthonormalized matrix in `out` (may not alias y).
 */
export function orthonormalize(y: Float64Array, n: number, l: number, out: Float64Array, passes = 1): void {
  let src = y;
  for (let pass = 0; pass < passes; pass++) {
    const g = transposeTimes(src, src, n, l, l, true);
    let trace = 0;
    for (let a = 0; a < l; a++) trace += g[a * l + a]!;
    const tiny = Math.max(trace, 1e-300) * 1e-13;
    const r = new Float64Array(l * l);
    const live = new Uint8Array(l);
    for (let a = 0; a < l; a++) {
      let d = g[a * l + a]!;
      for (let k = 0; k < a; k++) d -= r[k * l + a]! * r[k * l + a]!;
      if (!(d > tiny)) continue;
      live[a] = 1;
      const rd = Math.sqrt(d);
      r[a * l + a] = rd;
      for (let b = a + 1; b < l; b++) {
        let s = g[a * l + b]!;
        for (let k = 0; k < a; k++) s -= r[k * l + a]! * r[k * l + b]!;
        r[a * l + b] = s / rd;
      }
    }
    // R⁻¹ (upper triangular) over the live columns; dead rows/columns stay zero.
    const inv = new Float64Array(l * l);
    for (let c = 0; c < l; c++) {
      if (!live[c]) continue;
      inv[c * l + c] = 1 / r[c * l + c]!;
      for (let k = c - 1; k >= 0; k--) {
        if (!live[k]) continue;
        let s = 0;
        for (let m = k + 1; m <= c; m++) s += r[k * l + m]! * inv[m * l + c]!;
        inv[k * l + c] = -s / r[k * l + k]!;
      }
    }
    if (pass > 0) {
      // Second pass reads from out; copy so multiplyRows never reads what it writes.
      y.set(out.subarray(0, n * l));
      src = y;
    }
    multiplyRows(src, n, l, inv, l, out, true);
    src = out;
  }
}

/**
 * Eigen-decomposition of a symmetric l×l matrix (Householder tridiagonalization + implicit QL,
 * the EISPACK tred2/tql2 pair). Returns eigenvalues ascending and eigenvectors as columns of v.
 */
export function symmetricEigen(m: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const V: Float64Array[] = [];
  for (let i = 0; i < l; i++) V.push(Float64Array.from(m.subarray(i * l, i * l + l)));
  const d = new Float64Array(l);
  const e = new Float64Array(l);
  // tred2
  for (let j = 0; j < l; j++) d[j] = V[l - 1]![j]!;
  for (let i = l - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = V[i - 1]![j]!;
        V[i]![j] = 0;
        V[j]![i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k]! /= scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        V[j]![i] = f;
        g = e[j]! + V[j]![j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[k]![j]! * d[k]!;
          e[k]! += V[k]![j]! * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j]! /= h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j]! -= hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) V[k]![j]! -= f * e[k]! + g * d[k]!;
        d[j] = V[i - 1]![j]!;
        V[i]![j] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < l - 1; i++) {
    V[l - 1]![i] = V[i]![i]!;
    V[i]![i] = 1;
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[k]![i + 1]! / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[k]![i + 1]! * V[k]![j]!;
        for (let k = 0; k <= i; k++) V[k]![j]! -= g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) V[k]![i + 1] = 0;
  }
  for (let j = 0; j < l; j++) {
    d[j] = V[l - 1]![j]!;
    V[l - 1]![j] = 0;
  }
  V[l - 1]![l - 1] = 1;
  e[0] = 0;
  // tql2
  for (let i = 1; i < l; i++) e[i - 1] = e[i]!;
  e[l - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let lo = 0; lo < l; lo++) {
    tst1 = Math.max(tst1, Math.abs(d[lo]!) + Math.abs(e[lo]!));
    let m2 = lo;
    while (m2 < l) {
      if (Math.abs(e[m2]!) <= eps * tst1) break;
      m2++;
    }
    if (m2 > lo) {
      let iter = 0;
      do {
        iter++;
        if (iter > 200) break;
        let g = d[lo]!;
        let p = (d[lo + 1]! - g) / (2 * e[lo]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[lo] = e[lo]! / (p + r);
        d[lo + 1] = e[lo]! * (p + r);
        const dl1 = d[lo + 1]!;
        let h = g - d[lo]!;
        for (let i = lo + 2; i < l; i++) d[i]! -= h;
        f += h;
        p = d[m2]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[lo + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m2 - 1; i >= lo; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          for (let k = 0; k < l; k++) {
            h = V[k]![i + 1]!;
            V[k]![i + 1] = s * V[k]![i]! + c * h;
            V[k]![i] = c * V[k]![i]! - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[lo]!) / dl1;
        e[lo] = s * p;
        d[lo] = c * p;
      } while (Math.abs(e[lo]!) > eps * tst1);
    }
    d[lo] = d[lo]! + f;
    e[lo] = 0;
  }
  // Sort ascending (selection sort keeps it simple and deterministic).
  for (let i = 0; i < l - 1; i++) {
    let k = i;
    let p = d[i]!;
    for (let j = i + 1; j < l; j++) {
      if (d[j]! < p) {
        k = j;
        p = d[j]!;
      }
    }
    if (k !== i) {
      d[k] = d[i]!;
      d[i] = p;
      for (let j = 0; j < l; j++) {
        const t = V[j]![i]!;
        V[j]![i] = V[j]![k]!;
        V[j]![k] = t;
      }
    }
  }
  const vectors = new Float64Array(l * l);
  for (let i = 0; i < l; i++) vectors.set(V[i]!, i * l);
  return { values: d, vectors };
}

export interface TruncatedEigen {
  /** n×k row-major: row i is the k-dim coordinates of item i. */
  vectors: Float64Array;
  /** |eigenvalue| = singular value, descending. */
  values: Float64Array;
  k: number;
}

/**
 * Top-k (by magnitude) eigenpairs of a symmetric sparse matrix by randomized subspace iteration
 * (Halko, Martinsson & Tropp 2011, alg. 4.4 + 5.3). For a symmetric matrix these are also its top
 * singular triplets, which is what word-embedding SVD of PPMI needs.
 */
export function randomizedSymmetricEigen(
  a: SymmetricCsr,
  k: number,
  options: { oversample?: number; powerIterations?: number; seed?: number; log?: (s: string) => void } = {},
): TruncatedEigen {
  const n = a.n;
  let t0 = performance.now();
  const lap = (s: string): void => {
    if (!options.log) return;
    const t = performance.now();
    options.log(`  svd ${s}: ${Math.round(t - t0)} ms`);
    t0 = t;
  };
  const l = Math.min(n, k + (options.oversample ?? 16));
  const kk = Math.min(k, l);
  const q = options.powerIterations ?? 2;
  const omega = new Float64Array(n * l);
  gaussianFill(omega, options.seed ?? 42);
  const y = new Float64Array(n * l);
  const qm = new Float64Array(n * l);
  const full = expandSymmetric(a);
  lap('init');
  csrMultiply(full, omega, l, y);
  lap('multiply');
  orthonormalize(y, n, l, qm, q === 0 ? 2 : 1);
  lap('orthonormalize');
  for (let it = 0; it < q; it++) {
    csrMultiply(full, qm, l, y);
    lap('multiply');
    orthonormalize(y, n, l, qm, it === q - 1 ? 2 : 1);
    lap('orthonormalize');
  }
  // B = Qᵀ A Q (l×l), small and symmetric.
  csrMultiply(full, qm, l, y);
  lap('multiply');
  // QᵀAQ is symmetric, so computing its upper triangle and mirroring it is exact up to rounding.
  const b = transposeTimes(qm, y, n, l, l, true);
  lap('project');
  const eig = symmetricEigen(b, l);
  lap('small eigen');
  // Pick top-k by |λ|, ties by index.
  const order = Array.from({ length: l }, (_, i) => i).sort((x, z) => {
    const dx = Math.abs(eig.values[z]!) - Math.abs(eig.values[x]!);
    return dx !== 0 ? dx : x - z;
  });
  const pick = order.slice(0, kk);
  const values = Float64Array.from(pick, (i) => Math.abs(eig.values[i]!));
  // U = Q W[:, pick]  (n×kk)
  const w = new Float64Array(l * kk);
  for (let r = 0; r < l; r++) for (let c = 0; c < kk; c++) w[r * kk + c] = eig.vectors[r * l + pick[c]!]!;
  const u = new Float64Array(n * kk);
  multiplyRows(qm, n, l, w, kk, u);
  lap('lift');
  // Fix the sign of each component: largest-magnitude entry positive.
  for (let c = 0; c < kk; c++) {
    let best = 0;
    for (let i = 0; i < n; i++) {
      const v = u[i * kk + c]!;
      if (Math.abs(v) > Math.abs(best)) best = v;
    }
    if (best < 0) for (let i = 0; i < n; i++) u[i * kk + c] = -u[i * kk + c]!;
  }
  return { vectors: u, values, k: kk };
}
