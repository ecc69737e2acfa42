// A build's listing vectors and approximate graph, read from its embeddings directory and checked: what vector
// search (vectorCandidates in fusion.ts) runs on. One loader for the shim's vector worker and the bench.
import { readQuantized } from '../artifacts/embeddings.ts';
import type { VectorSources } from './ranking/fusion.ts';
import { readHnsw } from './hnsw.ts';
import { VectorIndex } from './vectors.ts';

/** Rejects when the vectors are missing, fail their checksum or count other listings; no graph means exact search. */
export async function readVectorSources(dir: string, expect: { modelId: string; count: number }): Promise<VectorSources> {
  const [rows, ann] = await Promise.all([readQuantized(dir, expect.modelId), readHnsw(dir, expect)]);
  if (!rows) throw new Error(`${dir}: vectors.i8 is missing or fails its checksum`);
  if (rows.q.count !== expect.count) throw new Error(`${rows.q.count} vectors for ${expect.count} listings`);
  return { vectors: new VectorIndex(rows.q, expect.modelId), ann };
}
