// Embeds a `semantic` query synchronously, with the model running in a worker thread.
//
// Why synchronous: the listing search every surface calls (services.listingSearch: the API, /ask, MCP, A2A)
// is a synchronous function, and the model's forward pass is asynchronous (ONNX Runtime). The main thread
// posts the text and blocks on a shared Int32Array (Atomics.wait) until the worker has written the vector
// into shared memory: ~0.1–0.3 ms for the catalog's static model, during which the event loop would have
// been busy with the same work anyway. Loading the model (transformers.js import, ONNX session) happens
// entirely in the worker, so it never stalls a request.
//
// Protocol: control[EMBED_DONE] holds the sequence number of the last finished embed, control[EMBED_STATUS]
// its outcome, `result` its vector. The main thread waits for its own sequence number, so a late answer to a
// request that timed out can never be mistaken for the next one's.
import { Worker } from 'node:worker_threads';

export const EMBED_DONE = 0;
export const EMBED_STATUS = 1;
export const EMBED_OK = 1;
export const EMBED_FAILED = -1;
/** Largest model width the shared result buffer holds (all-MiniLM-L6-v2: 384, the static model: 256). */
export const MAX_DIMS = 4096;

export interface EmbedShared {
  control: SharedArrayBuffer;
  result: SharedArrayBuffer;
}

export type ToWorker =
  | { kind: 'load'; id: number; modelDir: string; modelId: string }
  | { kind: 'embed'; seq: number; text: string }
  | { kind: 'close' };

type FromWorker =
  | { kind: 'loaded'; id: number; modelId: string; dims: number }
  | { kind: 'failed'; id: number; message: string };

export interface QueryEmbedderOptions {
  /** How long a request may wait for its vector before it falls back to keyword search. */
  timeoutMs?: number;
  /** Told when the worker dies; semantic search then falls back to keywords until the next load. */
  onError?: (error: Error) => void;
}

export class QueryEmbedder {
  private readonly worker: Worker;
  private readonly control: Int32Array;
  private readonly result: Float32Array;
  private readonly timeoutMs: number;
  private readonly pending = new Map<number, { resolve: (dims: number) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private seq = 0;
  private dims = 0;
  /** Loads sent and not yet answered: no embed is sent meanwhile, it would queue behind the load. */
  private loading = 0;
  private closed = false;
  private readonly onError: ((error: Error) => void) | undefined;

  constructor(options: QueryEmbedderOptions = {}) {
    this.onError = options.onError;
    this.timeoutMs = options.timeoutMs ?? 500;
    const shared: EmbedShared = { control: new SharedArrayBuffer(8), result: new SharedArrayBuffer(MAX_DIMS * 4) };
    this.control = new Int32Array(shared.control);
    this.result = new Float32Array(shared.result);
    this.worker = new Worker(new URL('./embed-worker.ts', import.meta.url), { workerData: shared });
    // The shim's lifetime is the server's; an idle worker must not keep a process (or a test run) alive.
    this.worker.unref();
    this.worker.on('message', (message: FromWorker) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      this.loading--;
      if (message.kind === 'loaded') {
        this.dims = message.dims;
        waiter.resolve(message.dims);
      } else waiter.reject(new Error(message.message));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the embedding worker exited (${code})`)));
  }

  get alive(): boolean {
    return !this.closed;
  }

  private fail(error: Error): void {
    if (!this.closed) this.onError?.(error);
    this.closed = true;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  /** Loads (or keeps) the model in `modelDir`; rejects unless its id is `modelId`. Resolves to its dims. */
  load(modelDir: string, modelId: string): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the embedding worker is closed'));
    const id = ++this.nextId;
    this.loading++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'load', id, modelDir, modelId } satisfies ToWorker);
    });
  }

  /** True when a model is loaded and no load is under way. */
  get ready(): boolean {
    return !this.closed && this.loading === 0 && this.dims > 0;
  }

  /**
   * The query's vector (L2-normalized; all zeros when no token of the text is known to the model), or
   * undefined when no model is ready or the worker did not answer in time.
   */
  embed(text: string): Float32Array | undefined {
    if (!this.ready) return undefined;
    this.seq = this.seq >= 0x7ffffffe ? 1 : this.seq + 1;
    const seq = this.seq;
    this.worker.postMessage({ kind: 'embed', seq, text } satisfies ToWorker);
    const deadline = performance.now() + this.timeoutMs;
    for (;;) {
      const done = Atomics.load(this.control, EMBED_DONE);
      if (done === seq) break;
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.control, EMBED_DONE, done, left);
    }
    if (Atomics.load(this.control, EMBED_STATUS) !== EMBED_OK) return undefined;
    return this.result.slice(0, this.dims);
  }

  /**
   * Asks the worker to release the ONNX session and exit on its own; terminating it while the session is
   * alive can abort the whole process (ONNX Runtime throws from a native finalizer). terminate() only when
   * the worker has not exited within a few seconds.
   */
  async close(): Promise<void> {
    if (this.closed && this.worker.threadId === -1) return;
    this.closed = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Keep the process alive until the worker is gone: closing is the last thing a shutdown waits for.
    this.worker.ref();
    this.worker.postMessage({ kind: 'close' } satisfies ToWorker);
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5000).unref());
    if ((await Promise.race([exited, timer])) === 'timeout') await this.worker.terminate();
  }
}
