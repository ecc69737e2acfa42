// What a build keeps in runtime/embeddings and how it is read back, shared by the stage that writes it and
// the shim that loads it. Kept apart from the stage so the shim can import it without transformers.js.
//
//   runtime/embeddings/vectors.i8 + vectors.json   one row per document, row i = line i of listings.jsonl
//   runtime/embeddings/hnsw.*                      approximate index (only for large catalogs, see hnsw.ts)
//   runtime/embeddings/model/                      the model (Transformers.js layout) that embedded the rows
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VECTORS_FILE, VECTORS_FORMAT, VECTORS_MANIFEST, QUANTIZATION, type Quantized, type VectorsManifest } from '../search/vectors.ts';

export const EMBEDDINGS_DIR = 'embeddings';
export const MODEL_SUBDIR = 'model';

/**
 * The rows of a vectors.i8 + vectors.json pair, checked against the manifest (format, size, sha256, model).
 * Undefined when absent or not usable; the caller decides whether that is an error.
 */
export async function readQuantized(dir: string, expectModelId?: string): Promise<{ q: Quantized; manifest: VectorsManifest } | undefined> {
  let manifest: VectorsManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, VECTORS_MANIFEST), 'utf8')) as VectorsManifest;
  } catch {
    return undefined;
  }
  if (manifest.format !== VECTORS_FORMAT || manifest.quantization !== QUANTIZATION) return undefined;
  if (expectModelId !== undefined && manifest.modelId !== expectModelId) return undefined;
  const bytes = await readFile(join(dir, VECTORS_FILE));
  if (bytes.length !== manifest.layout.bytes || createHash('sha256').update(bytes).digest('hex') !== manifest.sha256) return undefined;
  const { dims, count } = manifest;
  // A view, not a copy: the file's bytes are only ever read, and a copy would double the vectors' memory.
  const data = new Int8Array(bytes.buffer, bytes.byteOffset, count * dims);
  const scales = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let r = 0; r < count; r++) scales[r] = view.getFloat32(manifest.layout.scalesOffset + r * 4, true);
  return { q: { dims, count, data, scales }, manifest };
}
