// Compact int8 storage of normalized embeddings and exact top-k search over it in plain JS.
//
// Quantization: symmetric, one scale per vector. scale_i = max_c |v_ic| / 127 and
// q_ic = round(v_ic / scale_i) ∈ [-127, 127]; the dot product with a float query is
// scale_i · Σ_c q_ic · query_c. A per-vector scale keeps full 8-bit resolution for every vector
// (a global scale would waste it on vectors whose largest component is small); the cost is one
// float per vector and one multiply per scored row. The zero vector gets scale 0 and scores 0.
//
// Artifact: vectors.i8 holds count × dims int8 (row-major, no padding), zero bytes up to a
// multiple of 4, then count float32 little-endian scales. vectors.json describes it (model id,
// dims, count, quantization, byte offsets, sha256 of vectors.i8, optional row ids).
// Index expressions carry `!` for noUncheckedIndexedAccess: every index here is in range by
// construction, and the assertion is erased at run time (no checks added to the hot loops).

import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const VECTORS_FILE = 'vectors.i8';
export const VECTORS_MANIFEST = 'vectors.json';
export const VECTORS_FORMAT = 'catalog-vectors';
export const QUANTIZATION = 'int8-symmetric-per-vector-scale';

export interface VectorsManifest {
  format: typeof VECTORS_FORMAT;
  formatVersion: 1;
  modelId: string;
  dims: number;
  count: number;
  quantization: typeof QUANTIZATION;
  layout: { dataOffset: 0; scalesOffset: number; scalesType: 'float32le'; bytes: number };
  sha256: string;
  /** Optional row ids (e.g. listing ids), row i ↔ ids[i]. */
  ids?: string[];
}

export interface Quantized {
  dims: number;
  count: number;
  /** count × dims, row-major. */
  data: Int8Array;
  scales: Float32Array;
}

export interface SearchHit {
  /** Row number in the matrix. */
  index: number;
  /** Approximate cosine similarity (exact over the quantized vectors). */
  score: number;
}

/** Quantizes normalized vectors (each of length dims) to int8 with a per-vector scale. */
export function quantize(vectors: readonly Float32Array[], dims: number): Quantized {
  const count = vectors.length;
  const data = new Int8Array(count * dims);
  const scales = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    const v = vectors[r]!;
    if (v.length !== dims) throw new Error(`vector ${r} has ${v.length} dims, expected ${dims}`);
    let max = 0;
    for (let c = 0; c < dims; c++) {
      const a = Math.abs(v[c]!);
      if (a > max) max = a;
    }
    if (max === 0 || !Number.isFinite(max)) continue;
    const scale = Math.fround(max / 127);
    scales[r] = scale;
    const inv = 1 / scale;
    const o = r * dims;
    for (let c = 0; c < dims; c++) {
      const q = Math.round(v[c]! * inv);
      data[o + c] = q > 127 ? 127 : q < -127 ? -127 : q;
    }
  }
  return { dims, count, data, scales };
}

function scalesOffset(count: number, dims: number): number {
  return Math.ceil((count * dims) / 4) * 4;
}

/** Serializes to the vectors.i8 byte layout. */
export function encodeVectors(q: Quantized): Uint8Array {
  const off = scalesOffset(q.count, q.dims);
  const bytes = new Uint8Array(off + q.count * 4);
  bytes.set(new Uint8Array(q.data.buffer, q.data.byteOffset, q.data.byteLength), 0);
  const dv = new DataView(bytes.buffer);
  for (let r = 0; r < q.count; r++) dv.setFloat32(off + r * 4, q.scales[r]!, true);
  return bytes;
}

export async function writeVectors(dir: string, q: Quantized, meta: { modelId: string; ids?: readonly string[] }): Promise<VectorsManifest> {
  if (meta.ids && meta.ids.length !== q.count) throw new Error('ids length must equal the vector count');
  const bytes = encodeVectors(q);
  const manifest: VectorsManifest = {
    format: VECTORS_FORMAT,
    formatVersion: 1,
    modelId: meta.modelId,
    dims: q.dims,
    count: q.count,
    quantization: QUANTIZATION,
    layout: { dataOffset: 0, scalesOffset: scalesOffset(q.count, q.dims), scalesType: 'float32le', bytes: bytes.length },
    sha256: createHash('sha256').update(bytes).digest('hex'),
    ...(meta.ids ? { ids: [...meta.ids] } : {}),
  };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, VECTORS_FILE), bytes);
  await writeFile(join(dir, VECTORS_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export async function readVectors(dir: string, options: { verify?: boolean; expectModelId?: string } = {}): Promise<VectorIndex> {
  const manifest = JSON.parse(await readFile(join(dir, VECTORS_MANIFEST), 'utf8')) as VectorsManifest;
  if (manifest.format !== VECTORS_FORMAT || manifest.quantization !== QUANTIZATION) {
    throw new Error(`${dir}: unsupported vectors format ${manifest.format}/${manifest.quantization}`);
  }
  if (options.expectModelId !== undefined && manifest.modelId !== options.expectModelId) {
    throw new Error(`${dir}: vectors were built with model ${manifest.modelId}, not ${options.expectModelId}`);
  }
  const bytes = await readFile(join(dir, VECTORS_FILE));
  if (bytes.length !== manifest.layout.bytes) throw new Error(`${dir}: ${VECTORS_FILE} has the wrong size`);
  if (options.verify !== false) {
    const sum = createHash('sha256').update(bytes).digest('hex');
    if (sum !== manifest.sha256) throw new Error(`${dir}: ${VECTORS_FILE} checksum mismatch`);
  }
  return decodeVectors(bytes, manifest);
}

export function decodeVectors(bytes: Uint8Array, manifest: Pick<VectorsManifest, 'dims' | 'count' | 'modelId' | 'ids'>): VectorIndex {
  const { dims, count } = manifest;
  const off = scalesOffset(count, dims);
  const data = new Int8Array(count * dims);
  data.set(new Int8Array(bytes.buffer, bytes.byteOffset, count * dims));
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scales = new Float32Array(count);
  for (let r = 0; r < count; r++) scales[r] = dv.getFloat32(off + r * 4, true);
  return new VectorIndex({ dims, count, data, scales }, manifest.modelId, manifest.ids);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Bounded min-heap of (score, index) keeping the k best; the root is the worst kept hit.
 * Rows are offered in ascending index order, so a strict > comparison makes ties resolve to the
 * lower index.
 */
class TopK {
  readonly k: number;
  readonly scores: Float64Array;
  readonly idx: Int32Array;
  size = 0;

  constructor(k: number) {
    this.k = k;
    this.scores = new Float64Array(k);
    this.idx = new Int32Array(k);
  }

  /** Score a row must beat to enter. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  push(score: number, index: number): void {
    const s = this.scores;
    const ix = this.idx;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(score, index, s[p]!, ix[p]!)) break;
        s[i] = s[p]!;
        ix[i] = ix[p]!;
        i = p;
      }
      s[i] = score;
      ix[i] = index;
      return;
    }
    if (!worse(s[0]!, ix[0]!, score, index)) return;
    const n = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && worse(s[r]!, ix[r]!, s[l]!, ix[l]!) ? r : l;
      if (!worse(s[c]!, ix[c]!, score, index)) break;
      s[i] = s[c]!;
      ix[i] = ix[c]!;
      i = c;
    }
    s[i] = score;
    ix[i] = index;
  }

  sorted(): SearchHit[] {
    const out: SearchHit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ index: this.idx[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.index - b.index);
  }
}

/** True when (sa, ia) ranks below (sb, ib): lower score, or equal score and higher index. */
function worse(sa: number, ia: number, sb: number, ib: number): boolean {
  return sa < sb || (sa === sb && ia > ib);
}

/**
 * Exact top-k over an int8 matrix. The hot loop reads four int8 components per Int32Array load
 * (sign-extended with shifts) and scores two rows per pass so each query component is loaded once
 * for both (build/stages/embeddings/README.md, "Quantized vectors and search").
 */
export class VectorIndex {
  readonly dims: number;
  readonly count: number;
  readonly modelId: string;
  readonly ids: readonly string[] | undefined;
  readonly scales: Float32Array;
  /** Rows padded to a multiple of 4 components, viewed as int32 words (little-endian hosts). */
  private readonly words: Int32Array;
  private readonly bytes: Int8Array;
  private readonly stride: number;

  constructor(q: Quantized, modelId: string, ids?: readonly string[]) {
    this.dims = q.dims;
    this.count = q.count;
    this.modelId = modelId;
    this.ids = ids;
    this.scales = q.scales;
    this.stride = Math.ceil(q.dims / 4) * 4;
    let padded: Int8Array;
    if (this.stride === q.dims && q.data.byteOffset % 4 === 0) {
      padded = q.data;
    } else {
      padded = new Int8Array(q.count * this.stride);
      for (let r = 0; r < q.count; r++) padded.set(q.data.subarray(r * q.dims, (r + 1) * q.dims), r * this.stride);
    }
    this.bytes = padded;
    this.words = new Int32Array(padded.buffer, padded.byteOffset, (q.count * this.stride) >> 2);
  }

  /** The dequantized vector of a row. */
  vector(index: number): Float32Array {
    const out = new Float32Array(this.dims);
    const s = this.scales[index]!;
    const o = index * this.stride;
    for (let c = 0; c < this.dims; c++) out[c] = this.bytes[o + c]! * s;
    return out;
  }

  private prepareQuery(query: Float32Array): Float64Array {
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dims, index has ${this.dims}`);
    const q = new Float64Array(this.stride);
    q.set(query);
    return q;
  }

  /** Exact top-k by dot product (cosine for normalized vectors) over all rows. */
  search(query: Float32Array, k: number): SearchHit[] {
    const kk = Math.min(Math.max(0, Math.floor(k)), this.count);
    if (kk === 0) return [];
    const q = this.prepareQuery(query);
    const top = new TopK(kk);
    if (!LITTLE_ENDIAN) {
      for (let r = 0; r < this.count; r++) top.push(this.scoreBytes(q, r), r);
      return top.sorted();
    }
    const w = this.words;
    const scales = this.scales;
    const dw = this.stride >> 2;
    const n = this.count;
    let r = 0;
    for (; r + 1 < n; r += 2) {
      let s0 = 0;
      let s1 = 0;
      const o0 = r * dw;
      const o1 = o0 + dw;
      for (let c = 0; c < dw; c++) {
        const b = c << 2;
        const x0 = q[b]!;
        const x1 = q[b + 1]!;
        const x2 = q[b + 2]!;
        const x3 = q[b + 3]!;
        const a = w[o0 + c]!;
        const u = w[o1 + c]!;
        s0 += ((a << 24) >> 24) * x0 + ((a << 16) >> 24) * x1 + ((a << 8) >> 24) * x2 + (a >> 24) * x3;
        s1 += ((u << 24) >> 24) * x0 + ((u << 16) >> 24) * x1 + ((u << 8) >> 24) * x2 + (u >> 24) * x3;
      }
      s0 *= scales[r]!;
      s1 *= scales[r + 1]!;
      if (s0 > top.threshold) top.push(s0, r);
      if (s1 > top.threshold) top.push(s1, r + 1);
    }
    if (r < n) {
      const s = this.scoreWords(q, r);
      if (s > top.threshold) top.push(s, r);
    }
    return top.sorted();
  }

  /**
   * Exact top-k restricted to the given rows (e.g. a type/category filter's matches). Cost is
   * proportional to docIds.length; duplicate ids are scored once. Out-of-range ids throw.
   */
  searchSubset(query: Float32Array, docIds: ArrayLike<number>, k: number): SearchHit[] {
    const kk = Math.min(Math.max(0, Math.floor(k)), docIds.length);
    if (kk === 0) return [];
    const q = this.prepareQuery(query);
    // Ascending order makes tie-breaking (lower index first) match search().
    const ids = Int32Array.from(docIds).sort();
    const top = new TopK(Math.min(kk, ids.length));
    let prev = -1;
    for (let i = 0; i < ids.length; i++) {
      const r = ids[i]!;
      if (r === prev) continue;
      prev = r;
      if (r < 0 || r >= this.count) throw new RangeError(`row ${r} out of range 0..${this.count - 1}`);
      const s = LITTLE_ENDIAN ? this.scoreWords(q, r) : this.scoreBytes(q, r);
      if (s > top.threshold) top.push(s, r);
    }
    return top.sorted();
  }

  /** Scores of every row (Float32Array, row order), for callers that blend with other signals. */
  scoreAll(query: Float32Array): Float32Array {
    const q = this.prepareQuery(query);
    const out = new Float32Array(this.count);
    for (let r = 0; r < this.count; r++) out[r] = LITTLE_ENDIAN ? this.scoreWords(q, r) : this.scoreBytes(q, r);
    return out;
  }

  // Same arithmetic, in the same order, as one row of search()'s two-row loop, so a row scores
  // bit-identically in search(), searchSubset() and scoreAll().
  private scoreWords(q: Float64Array, r: number): number {
    const w = this.words;
    const dw = this.stride >> 2;
    const o = r * dw;
    let s = 0;
    for (let c = 0; c < dw; c++) {
      const b = c << 2;
      const a = w[o + c]!;
      s += ((a << 24) >> 24) * q[b]! + ((a << 16) >> 24) * q[b + 1]! + ((a << 8) >> 24) * q[b + 2]! + (a >> 24) * q[b + 3]!;
    }
    return s * this.scales[r]!;
  }

  private scoreBytes(q: Float64Array, r: number): number {
    const o = r * this.stride;
    let s = 0;
    for (let c = 0; c < this.dims; c++) s += this.bytes[o + c]! * q[c]!;
    return s * this.scales[r]!;
  }
}
