// Keyword search off the shim's event loop: a worker thread (keyword-worker.ts) runs the query engine over the
// same build, its index shared rather than copied (Snapshot.sharedFiles). The main thread keeps the HTTP work and
// the answer bodies, the worker the search, which was about a third of the main thread's time a request
// (docs/decisions/006-keyword-worker-thread.md).
// The engine on the main thread stays the answer of record: until the worker has loaded a snapshot, and when it
// fails, dies or does not answer in time, a search runs there, so an answer never depends on the worker.
import type { SearchRequest, SearchResult } from '../../src/search/query-engine.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { WorkerClient } from './worker-client.ts';

export type ToKeywordWorker =
  { kind: 'load'; buildDir: string; files: ReadonlyMap<string, Uint8Array> } | { kind: 'search'; buildDir: string; request: SearchRequest } | { kind: 'close' };

export type FromKeywordWorker =
  | { kind: 'loaded'; id: number }
  | {
      kind: 'found';
      id: number;
      docs: number[];
      total: number;
      hasMore: boolean;
      order: SearchResult['order'];
      partial: boolean | undefined;
      corrected: string | undefined;
    }
  | { kind: 'failed'; id: number; message: string };

/**
 * The worker's JavaScript heap: the index is shared memory outside it and a search allocates a page of results,
 * so a small young generation collects often and cheaply.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } as const;

/** How long a search waits for the worker before it runs on the main thread. */
export const KEYWORD_SEARCH_TIMEOUT_MS = 2000;
/** A worker that died is replaced no sooner than this after it started: one that cannot start is not retried per request. */
const RESTART_AFTER_MS = 5000;

export interface KeywordThreadOptions {
  timeoutMs?: number | undefined;
  restartAfterMs?: number | undefined;
  /** Told when a worker dies (the next search starts another). */
  onError?: ((error: Error) => void) | undefined;
}

export class KeywordThread {
  private worker: WorkerClient<ToKeywordWorker, FromKeywordWorker> | undefined;
  /** Per snapshot, whether this worker has loaded it: a promise while loading, then true, or false when it could not. */
  private loaded = new WeakMap<Snapshot, Promise<boolean> | boolean>();
  private startedAt = 0;
  private readonly restartAfterMs: number;
  /** Searches answered by the worker and on this thread (before the worker loaded a snapshot, or when it failed). */
  readonly answered = { worker: 0, here: 0 };
  private readonly timeoutMs: number;
  private readonly onError: ((error: Error) => void) | undefined;
  private closed = false;

  constructor(options: KeywordThreadOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? KEYWORD_SEARCH_TIMEOUT_MS;
    this.restartAfterMs = options.restartAfterMs ?? RESTART_AFTER_MS;
    this.onError = options.onError;
  }

  /** The search's result, from the worker; on this thread when the worker has not loaded the snapshot or fails. */
  async search(snapshot: Snapshot, request: SearchRequest): Promise<SearchResult> {
    const worker = this.ready(snapshot);
    if (worker) {
      try {
        const answer = await worker.request({ kind: 'search', buildDir: snapshot.buildDir, request }, this.timeoutMs);
        if (answer.kind === 'found') {
          const result: SearchResult = { docs: answer.docs, hasMore: answer.hasMore, total: answer.total, order: answer.order };
          if (answer.partial !== undefined) result.partial = answer.partial;
          if (answer.corrected !== undefined) result.corrected = answer.corrected;
          this.answered.worker++;
          return result;
        }
      } catch {
        // Timed out or died: answered below, on this thread.
      }
    }
    this.answered.here++;
    return snapshot.engine.search(request);
  }

  /** The worker when it has loaded the snapshot; else undefined, having started the load (and the worker) if need be. */
  private ready(snapshot: Snapshot): WorkerClient<ToKeywordWorker, FromKeywordWorker> | undefined {
    if (this.closed) return undefined;
    if (!this.worker?.alive) {
      if (this.worker && Date.now() - this.startedAt < this.restartAfterMs) return undefined;
      this.startedAt = Date.now();
      this.worker = new WorkerClient<ToKeywordWorker, FromKeywordWorker>(new URL('./keyword-worker.ts', import.meta.url), {
        name: 'the keyword worker',
        onError: this.onError,
        worker: { resourceLimits: WORKER_HEAP },
      });
      this.loaded = new WeakMap();
    }
    const state = this.loaded.get(snapshot);
    if (state === true) return this.worker;
    if (state === undefined) {
      const worker = this.worker;
      const loading = worker
        .request({ kind: 'load', buildDir: snapshot.buildDir, files: snapshot.sharedFiles }, undefined)
        .then((answer) => answer.kind === 'loaded')
        .catch(() => false)
        .then((ok) => {
          // A worker replaced meanwhile has its own table. A snapshot this worker could not load is searched here.
          if (this.worker === worker) this.loaded.set(snapshot, ok);
          return ok;
        });
      this.loaded.set(snapshot, loading);
    }
    return undefined;
  }

  /** Resolves when the worker has loaded the snapshot (false when it could not), starting the load if need be. */
  whenLoaded(snapshot: Snapshot): Promise<boolean> {
    if (this.ready(snapshot)) return Promise.resolve(true);
    // Not ready: loading, or not loaded by a live worker (one that died and is not replaced yet, or a failed load).
    const state = this.loaded.get(snapshot);
    return state instanceof Promise ? state : Promise.resolve(false);
  }

  /** Lets the searches under way finish (each within the timeout), then ends the worker. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await worker.whenIdle();
    await worker.close({ kind: 'close' });
  }

  /** Ends the worker at once, as a crash would (tests). */
  crash(): Promise<number> {
    return this.worker ? this.worker.terminate() : Promise.resolve(0);
  }
}
