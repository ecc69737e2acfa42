// The unchanged listing and owner pages of an incremental build, hard-linked from the build being replaced on a worker
// thread while the renderers render the changed ones. A renderer writes its share's page inputs before it renders
// (src/page-model/page-data.ts pagePlan) and says so over IPC; the site stage hands that file to carry(), and the
// worker links the share's carried pages with synchronous calls, one mkdir and one link per file the page has (its
// line names its .br and .gz, so no link is tried that would fail). The links go under a folder of their own, not
// site/, so that nothing the stage does to site/ meanwhile (merging the renderers' output, precompressing) reaches
// them; the stage moves them in at the end (site-stage.ts). The previous build is only read.
import { Worker } from 'node:worker_threads';

export type ToPageCarrierWorker = { inputs: string };
export type FromPageCarrierWorker = { inputs: string; carried: number; seconds: number } | { inputs: string; failed: string };

/** The variants of a page as its page-inputs line names them: suffixes joined by commas, "" for none. */
export const variantSuffixes = (field: string | undefined): string[] => (field ? field.split(',') : []);

export class PageCarrier {
  private readonly worker: Worker;
  private readonly waiting = new Map<string, { resolve: (carried: number) => void; reject: (error: Error) => void }>();
  private readonly shares: Promise<number>[] = [];
  /** Seconds the worker spent linking, all shares together. */
  seconds = 0;

  /** Links the pages a page-inputs file marks carried from `from` (the previous build's site) into `to`. */
  constructor(from: string, to: string) {
    this.worker = new Worker(new URL('./page-carrier-worker.ts', import.meta.url), { workerData: { from, to } });
    this.worker.on('message', (message: FromPageCarrierWorker) => {
      const waiter = this.waiting.get(message.inputs);
      this.waiting.delete(message.inputs);
      if ('failed' in message) waiter?.reject(new Error(`linking the unchanged pages of ${message.inputs} failed: ${message.failed}`));
      else {
        this.seconds += message.seconds;
        waiter?.resolve(message.carried);
      }
    });
    const fail = (error: Error) => {
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the page carrier's thread ended (code ${code}) before it linked every page`)));
  }

  /** Starts linking the carried pages of one share's page-inputs file (the worker takes them in turn). */
  carry(inputs: string): void {
    const share = new Promise<number>((resolve, reject) => this.waiting.set(inputs, { resolve, reject }));
    // Awaited in done(); until then a failure waits there rather than going unhandled.
    share.catch(() => undefined);
    this.shares.push(share);
    this.worker.postMessage({ inputs } satisfies ToPageCarrierWorker);
  }

  /** The pages carried, once every share handed over is linked; rejects with the first failure. */
  async done(): Promise<number> {
    const counts = await Promise.all(this.shares);
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Ends the thread (after done(), or when the stage fails and what it linked is removed with the build). */
  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
