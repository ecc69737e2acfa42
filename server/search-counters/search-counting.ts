// The searchTrend counters of the shim: how often each listing is returned in the first page of a search and
// how often it is opened (read by id or its page served). Counted in memory per UTC day and listing id, and
// flushed to a SignalStore every few seconds and at shutdown, so a request never waits on a write.
import type { Logger } from 'pino';
import type { Snapshot } from '../catalog/snapshot.ts';
import type { SearchSignals } from '../services.ts';
import { utcDay, type SignalCounts, type SignalStore } from '../../src/signal-stores/counter-store.ts';

export interface SearchSignalOptions {
  store: SignalStore;
  flushSeconds: number;
  logger: Logger;
  /** Bound on the listing ids held between flushes; counts past it wait for the next flush. */
  maxPending?: number;
  now?: () => Date;
}

export interface SearchSignalCounter extends SearchSignals {
  /** Writes what was counted since the last flush; one flush runs at a time. */
  flush(): Promise<void>;
  /** Stops the timer and flushes the rest. */
  close(): Promise<void>;
}

const DEFAULT_MAX_PENDING = 200_000;

export function createSearchSignals(options: SearchSignalOptions): SearchSignalCounter {
  const { store, logger } = options;
  const now = options.now ?? (() => new Date());
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  let pending = new Map<string, Map<string, SignalCounts>>();
  let size = 0;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  /** Adds n to a counter; a new listing id past maxPending is dropped unless `force` (re-queued counts). */
  const add = (day: string, id: string, kind: keyof SignalCounts, n: number, force = false) => {
    let byId = pending.get(day);
    if (!byId) pending.set(day, (byId = new Map()));
    let counts = byId.get(id);
    if (!counts) {
      if (size >= maxPending && !force) return;
      byId.set(id, (counts = { appeared: 0, opened: 0 }));
      size++;
    }
    counts[kind] += n;
  };

  const writeOnce = async () => {
    if (size === 0) return;
    const batch = pending;
    pending = new Map();
    size = 0;
    try {
      await store.add(batch);
    } catch (error) {
      // Keep the counts for the next flush rather than lose a day of signal to a short outage.
      logger.warn({ err: error }, 'search signals could not be flushed; retrying at the next flush');
      for (const [day, byId] of batch) {
        for (const [id, c] of byId) {
          if (c.appeared) add(day, id, 'appeared', c.appeared, true);
          if (c.opened) add(day, id, 'opened', c.opened, true);
        }
      }
    }
  };

  const flush = () => {
    flushing = flushing.then(writeOnce);
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushSeconds * 1000);
  timer.unref();

  return {
    appeared(snapshot: Snapshot, docs: readonly number[], offset: number) {
      // Only the first page counts: paging deeper is browsing, not a listing surfacing for a query.
      if (offset !== 0 || closed) return;
      const { store } = snapshot;
      const day = utcDay(now());
      for (const doc of docs) if (doc < store.count) add(day, store.idOf(doc), 'appeared', 1);
    },
    opened(snapshot: Snapshot, doc: number) {
      if (closed) return;
      if (doc < snapshot.store.count) add(utcDay(now()), snapshot.store.idOf(doc), 'opened', 1);
    },
    flush,
    async close() {
      closed = true;
      clearInterval(timer);
      await flush();
      await store.close();
    },
  };
}
