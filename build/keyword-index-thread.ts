// The keyword index built on a worker thread while the index stage's own thread reads the store, writes the
// listing lines and gathers the postings: tokenizing and stemming every listing is the larger part of the stage's
// CPU, and on two cores the two parts overlap. The worker holds the KeywordIndexBuilder; this side sends it the names,
// then the listings in document order in batches, then the popularity column and the folder to write the index
// into. The result is the index KeywordIndexBuilder makes in one thread, byte for byte.
import { Worker } from 'node:worker_threads';
import type { SearchableListing } from '../src/search/index-builder.ts';

export interface KeywordIndexThreadOptions {
  /** Listings per message: large enough that a message costs little, small enough to keep the queue short. */
  batch?: number;
  /** Batches sent and not yet indexed, at most: the worker's queue holds no more than this much text. */
  inFlight?: number;
  /**
   * Reuse the per-listing terms a previous build kept (keyword-term-cache.ts) and keep this build's at `out`; reused
   * only when `previous` was written by code with this `fingerprint`.
   */
  termCache?: { previous?: string | undefined; out: string; fingerprint: string } | undefined;
}

export interface KeywordIndexWorkerData {
  termCache?: KeywordIndexThreadOptions['termCache'];
}

/** How many listings' terms came from the previous build and how many were tokenized; `unused`: why none was reused. */
export interface TermReuse {
  reused: number;
  tokenized: number;
  unused?: string;
}

export type ToKeywordIndexWorker =
  { kind: 'names'; names: string[] } | { kind: 'listings'; listings: SearchableListing[] } | { kind: 'finish'; popularity: Float32Array; dir: string };

export type FromKeywordIndexWorker = { kind: 'indexed' } | { kind: 'written'; terms?: TermReuse | undefined } | { kind: 'failed'; message: string };

/** The fields of a listing the keyword index reads: the worker receives these, not the whole listing. */
const searchable = (listing: SearchableListing): SearchableListing => ({
  name: listing.name,
  repo: listing.repo,
  author: listing.author,
  description: listing.description,
  tags: listing.tags,
  categories: listing.categories,
});

export class KeywordIndexThread {
  private readonly worker: Worker;
  private names: string[] = [];
  private batch: SearchableListing[] = [];
  private inFlight = 0;
  private failure: Error | undefined;
  /** Told when a batch is indexed, the index written, or the worker failed. */
  private waiter: (() => void) | undefined;
  private written = false;
  /** Set once the index is written, with a term cache. */
  termReuse: TermReuse | undefined;
  private readonly batchSize: number;
  private readonly maxInFlight: number;

  constructor(options: KeywordIndexThreadOptions = {}) {
    this.batchSize = options.batch ?? 1000;
    this.maxInFlight = options.inFlight ?? 16;
    const workerData: KeywordIndexWorkerData = { termCache: options.termCache };
    this.worker = new Worker(new URL('./keyword-index-worker.ts', import.meta.url), { workerData });
    this.worker.on('message', (message: FromKeywordIndexWorker) => {
      if (message.kind === 'indexed') this.inFlight--;
      else if (message.kind === 'written') {
        this.written = true;
        this.termReuse = message.terms;
      } else this.failure ??= new Error(`the keyword index worker failed: ${message.message}`);
      this.wake();
    });
    this.worker.on('error', (error) => {
      this.failure ??= error;
      this.wake();
    });
    this.worker.on('exit', (code) => {
      if (!this.written) this.failure ??= new Error(`the keyword index worker exited (${code}) before writing the index`);
      this.wake();
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private async until(done: () => boolean): Promise<void> {
    while (!done()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    if (this.failure) throw this.failure;
  }

  /** A listing's name, before any listing (KeywordIndexBuilder.addName). */
  addName(name: string): void {
    this.names.push(name);
    if (this.names.length >= this.batchSize * 10) this.flushNames();
  }

  private flushNames(): void {
    if (this.names.length === 0) return;
    this.post({ kind: 'names', names: this.names });
    this.names = [];
  }

  private post(message: ToKeywordIndexWorker): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(message);
  }

  /** The next document; a promise, to be awaited, when the worker is behind by `inFlight` batches. */
  add(listing: SearchableListing): Promise<void> | undefined {
    this.batch.push(searchable(listing));
    if (this.batch.length < this.batchSize) return undefined;
    return this.flush();
  }

  private flush(): Promise<void> | undefined {
    this.flushNames();
    if (this.batch.length > 0) {
      this.post({ kind: 'listings', listings: this.batch });
      this.batch = [];
      this.inFlight++;
    }
    return this.inFlight >= this.maxInFlight || this.failure ? this.until(() => this.inFlight < this.maxInFlight) : undefined;
  }

  /** Sends the last listings and `popularity`; the worker writes the index into `dir` meanwhile (see written()). */
  async finish(popularity: Float32Array, dir: string): Promise<void> {
    await this.flush();
    this.post({ kind: 'finish', popularity, dir });
  }

  /** Settles once the index is written; the worker is gone then. Rejects with the worker's error. */
  async whenWritten(): Promise<void> {
    try {
      await this.until(() => this.written);
    } finally {
      await this.worker.terminate();
    }
  }

  /** Stops the worker; a build must, whatever happened (the worker waits for messages until then). */
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
