// A worker thread that answers numbered requests, each within a timeout: the plumbing shared by the query
// embedder's worker (an operator's model) and the vector worker (the build's vectors and graph). A request the
// worker does not answer in time is abandoned and rejected, so a slow or stuck worker cannot pile up waiters;
// when the worker dies, every waiter is rejected at once and the client stays dead (its owner makes a new one).
import { Worker, type Transferable, type WorkerOptions } from 'node:worker_threads';

/** A request as the worker receives it: the client numbers each one, and the answer carries the number back. */
export type Numbered<Request> = Request & { id: number };

interface Pending<Answer> {
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

export interface WorkerClientOptions {
  /** What the worker is, for error messages ("the embedding worker"). */
  name: string;
  /** Told once when the worker fails or exits unasked. */
  onError?: ((error: Error) => void) | undefined;
  worker?: WorkerOptions | undefined;
}

export class WorkerClient<Request extends { kind: string }, Answer extends { id: number }> {
  private readonly worker: Worker;
  private readonly name: string;
  private readonly pending = new Map<number, Pending<Answer>>();
  /** Told when no request is under way any more (whenIdle). */
  private idleWaiters: Array<() => void> = [];
  private readonly onError: ((error: Error) => void) | undefined;
  private nextId = 0;
  private closed = false;

  constructor(url: URL, options: WorkerClientOptions) {
    this.name = options.name;
    this.onError = options.onError;
    this.worker = new Worker(url, options.worker);
    this.worker.on('message', (answer: Answer) => {
      const waiter = this.pending.get(answer.id);
      if (!waiter) return;
      this.settled(answer.id);
      waiter.resolve(answer);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`${this.name} exited (${code})`)));
    // An idle worker must not keep a process (or a test run) alive; one with requests under way does.
    this.worker.unref();
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size > 0) return;
    if (!this.closed) this.worker.unref();
    this.becameIdle();
  }

  get alive(): boolean {
    return !this.closed;
  }

  /** Settles when no request is under way: each one answered, abandoned at its timeout or failed. */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private becameIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private fail(error: Error): void {
    if (!this.closed) this.onError?.(error);
    this.closed = true;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.worker.unref();
    this.becameIdle();
  }

  /** Sends `message` with a fresh id; the answer with that id, rejected after `timeoutMs` (none: wait). */
  request(message: Request, timeoutMs: number | undefined, transfer?: readonly Transferable[]): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error(`${this.name} is closed`));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.settled(id);
          reject(new Error(`${this.name} did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
      }
      this.pending.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  /**
   * Sends `closeMessage` and waits for the worker to exit on its own (a native library may need to release what
   * it holds first); terminates it when it has not exited within `graceMs`.
   */
  async close(closeMessage: Request, graceMs = 5000): Promise<void> {
    if (this.closed && this.worker.threadId === -1) return;
    this.closed = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Keep the process alive until the worker is gone: closing is the last thing a shutdown waits for.
    this.worker.ref();
    this.worker.postMessage(closeMessage);
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([exited, timer])) === 'timeout') await this.worker.terminate();
  }

  /** Ends the worker at once (tests that simulate a crash; close() is the orderly way). */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}
