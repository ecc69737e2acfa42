// Vector search for the shim, in a worker thread (vector-worker.ts) that holds one build's vectors and graph:
// a semantic search sends its query vector and gets the nearest listings back without blocking the event loop.
// Before the move, the graph search was about half of a semantic search's CPU on the shim's main thread; now it
// runs on another core, and the request's keyword pass runs meanwhile (bench/records/2026-11-23-vector-worker.md).
// A search the worker does not answer within the timeout, or a dead worker, answers undefined: the caller
// falls back to keywords and says so (Search-Mode: keyword-fallback).
import { WorkerClient } from './worker-client.ts';

export type ToVectorWorker =
  | { kind: 'load'; dir: string; modelId: string; count: number }
  | { kind: 'nearest'; vector: Float32Array; admitted: Uint32Array | undefined; k: number }
  | { kind: 'close' };

export type FromVectorWorker =
  | { kind: 'loaded'; id: number; approximate: boolean; graphRejected: boolean }
  | { kind: 'nearest'; id: number; docs: Uint32Array }
  | { kind: 'failed'; id: number; message: string };

/**
 * The worker's JavaScript heap: its vectors and graph live outside it (file buffers, typed arrays, a memory map),
 * and a search allocates a few kilobytes. Left unbounded, the heap grew for thousands of searches before V8
 * collected it (bench/records/2026-11-23-vector-worker.md).
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 48 } as const;

/** How long a search waits for the worker's answer before it answers by keywords. */
export const VECTOR_SEARCH_TIMEOUT_MS = 2000;

export interface VectorSearcherOptions {
  timeoutMs?: number | undefined;
  /** Told when the worker dies; searches then answer undefined until the next snapshot's searcher. */
  onError?: ((error: Error) => void) | undefined;
}

export class VectorSearcher {
  /** True when the build has the approximate graph (large catalogs), false when search is exact. */
  readonly approximate: boolean;
  /** True when the build has a graph that failed its checks (search is exact then). */
  readonly graphRejected: boolean;
  private readonly worker: WorkerClient<ToVectorWorker, FromVectorWorker>;
  private readonly timeoutMs: number;

  private constructor(worker: WorkerClient<ToVectorWorker, FromVectorWorker>, loaded: Extract<FromVectorWorker, { kind: 'loaded' }>, timeoutMs: number) {
    this.worker = worker;
    this.approximate = loaded.approximate;
    this.graphRejected = loaded.graphRejected;
    this.timeoutMs = timeoutMs;
  }

  /** A worker holding the vectors (and graph) of the embeddings directory `dir`; rejects when they fail their checks. */
  static async open(dir: string, expect: { modelId: string; count: number }, options: VectorSearcherOptions = {}): Promise<VectorSearcher> {
    const worker = new WorkerClient<ToVectorWorker, FromVectorWorker>(new URL('./vector-worker.ts', import.meta.url), {
      name: 'the vector worker',
      onError: options.onError,
      worker: { resourceLimits: WORKER_HEAP },
    });
    try {
      const loaded = await worker.request({ kind: 'load', dir, ...expect }, undefined);
      if (loaded.kind !== 'loaded') throw new Error(loaded.kind === 'failed' ? loaded.message : 'unexpected answer');
      return new VectorSearcher(worker, loaded, options.timeoutMs ?? VECTOR_SEARCH_TIMEOUT_MS);
    } catch (error) {
      await worker.close({ kind: 'close' });
      throw error;
    }
  }

  get alive(): boolean {
    return this.worker.alive;
  }

  /**
   * The `k` listings most similar to the query, best first, among `admitted` (all listings when undefined):
   * vectorCandidates in the worker. Undefined when the worker failed or did not answer within the timeout.
   */
  async nearest(vector: Float32Array, admitted: ArrayLike<number> | undefined, k: number): Promise<number[] | undefined> {
    const docs = admitted === undefined ? undefined : Uint32Array.from(admitted);
    try {
      const answer = await this.worker.request({ kind: 'nearest', vector, admitted: docs, k }, this.timeoutMs, docs ? [docs.buffer] : []);
      return answer.kind === 'nearest' ? Array.from(answer.docs) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Lets the searches under way finish (each within the timeout), then ends the worker. */
  async close(): Promise<void> {
    // Each search under way ends within the timeout (answered or abandoned), so waiting for idle is bounded.
    await this.worker.whenIdle();
    await this.worker.close({ kind: 'close' });
  }

  /** Ends the worker at once, as a crash would (tests). */
  crash(): Promise<number> {
    return this.worker.terminate();
  }
}
