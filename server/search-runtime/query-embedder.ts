// Embeds `semantic` queries with an operator-provided model (CATALOG_EMBEDDING_MODEL_DIR, transformers.js +
// ONNX Runtime) in a worker thread, never blocking the shim's event loop. The default encoder (a static word
// table, src/embeddings/static-encoder.ts) needs none of this: it embeds on the calling thread in microseconds.
//
// The listing search every surface calls is synchronous, so a query's vector is taken from a small LRU of
// finished embeddings: on a miss the search answers with keywords (Search-Mode: keyword-fallback, never
// cached by the routes) while the worker embeds the text in the background; the same query asked again is
// answered by vectors. A request to the worker that takes longer than `timeoutMs` is abandoned, so a stuck
// worker cannot pile up requests.
import { LRUCache } from 'lru-cache';
import { WorkerClient } from './worker-client.ts';

export type ToWorker = { kind: 'load'; modelDir: string; modelId: string } | { kind: 'embed'; text: string } | { kind: 'close' };

export type FromWorker =
  | { kind: 'loaded'; id: number; modelId: string; dims: number }
  | { kind: 'embedded'; id: number; vector: Float32Array }
  | { kind: 'failed'; id: number; message: string };

export interface QueryEmbedderOptions {
  /** How long an embedding may take before it is abandoned. */
  timeoutMs?: number;
  /** Query vectors kept (distinct texts). */
  cacheSize?: number;
  /** Told when the worker dies; semantic search then falls back to keywords until the next load. */
  onError?: (error: Error) => void;
}

export class QueryEmbedder {
  private readonly worker: WorkerClient<ToWorker, FromWorker>;
  private readonly timeoutMs: number;
  private readonly vectors: LRUCache<string, Float32Array>;
  /** Texts being embedded, so a burst of the same query sends it once. */
  private readonly inFlight = new Map<string, Promise<Float32Array | undefined>>();
  private dims = 0;
  /** Loads sent and not yet answered: vectors cached meanwhile could belong to the previous model. */
  private loading = 0;

  constructor(options: QueryEmbedderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.vectors = new LRUCache({ max: options.cacheSize ?? 10_000 });
    this.worker = new WorkerClient(new URL('./embed-worker.ts', import.meta.url), { name: 'the embedding worker', onError: options.onError });
  }

  get alive(): boolean {
    return this.worker.alive;
  }

  /** Loads (or keeps) the model in `modelDir`; rejects unless its id is `modelId`. Resolves to its dims. */
  async load(modelDir: string, modelId: string): Promise<number> {
    this.loading++;
    try {
      const answer = await this.worker.request({ kind: 'load', modelDir, modelId }, undefined);
      if (answer.kind !== 'loaded') throw new Error(answer.kind === 'failed' ? answer.message : 'unexpected answer');
      if (answer.dims !== this.dims) this.vectors.clear();
      this.dims = answer.dims;
      return answer.dims;
    } finally {
      this.loading--;
    }
  }

  /** True when a model is loaded and no load is under way. */
  get ready(): boolean {
    return this.worker.alive && this.loading === 0 && this.dims > 0;
  }

  /** The query's vector, when it has been embedded already; undefined otherwise (see embed). */
  cached(text: string): Float32Array | undefined {
    return this.ready ? this.vectors.get(text) : undefined;
  }

  /**
   * The query's vector (L2-normalized; all zeros when the model knows no token of it), or undefined when no
   * model is ready, the worker failed or it did not answer within the timeout. Never blocks the event loop.
   */
  embed(text: string): Promise<Float32Array | undefined> {
    const hit = this.cached(text);
    if (hit) return Promise.resolve(hit);
    if (!this.ready) return Promise.resolve(undefined);
    const running = this.inFlight.get(text);
    if (running) return running;
    const dims = this.dims;
    const job = this.worker
      .request({ kind: 'embed', text }, this.timeoutMs)
      .then((answer) => {
        if (answer.kind !== 'embedded' || answer.vector.length !== dims || this.dims !== dims) return undefined;
        this.vectors.set(text, answer.vector);
        return answer.vector;
      })
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(text));
    this.inFlight.set(text, job);
    return job;
  }

  /**
   * Asks the worker to release the ONNX session and exit on its own; terminating it while the session is
   * alive can abort the whole process (ONNX Runtime throws from a native finalizer). Terminated only when
   * the worker has not exited within a few seconds.
   */
  close(): Promise<void> {
    return this.worker.close({ kind: 'close' });
  }
}
