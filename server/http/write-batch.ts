// Whole responses finished together at the end of the event loop's poll phase rather than one by one as each
// request is handled. A socket write wakes a client that is waiting for it, and on a VM waking a sleeping reader
// costs more than the write itself: under load most of the shim's time went to `writev`, most of that in the
// wake-up (perf: sock_def_readable → try_to_wake_up). Written in a burst, the first response wakes the client and
// the rest find it awake (bench/records/2026-11-23-write-batch.md). The added latency is the rest of the loop
// iteration: the requests that arrived with this one.
import type { ServerResponse } from 'node:http';
import { giveBack, isLeased } from './body-pool.ts';

export class WriteBatch {
  #pending: Array<ServerResponse | Buffer | undefined> = [];
  readonly #onError: (error: unknown, res: ServerResponse) => void;

  /** `onError` hears of a response that could not be finished (it is destroyed: its client sees the connection close). */
  constructor(onError: (error: unknown, res: ServerResponse) => void) {
    this.#onError = onError;
  }

  readonly #flush = (): void => {
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += 2) {
      const res = pending[i] as ServerResponse;
      try {
        const body = pending[i + 1] as Buffer | undefined;
        // A leased body (body-pool.ts) goes back once the kernel has it: `finish`, which end's callback waits for.
        if (body && isLeased(body)) res.end(body, () => giveBack(body));
        else res.end(body);
      } catch (error) {
        // One response that cannot be finished must not keep the others of the burst from theirs.
        res.destroy();
        this.#onError(error, res);
      }
    }
  };

  /** Ends `res` (with `body`, if it has one: a 304 or a 204 has none) once the current poll phase is over (setImmediate runs right after it). */
  end(res: ServerResponse, body?: Buffer): void {
    if (this.#pending.length === 0) setImmediate(this.#flush);
    this.#pending.push(res, body);
  }
}
