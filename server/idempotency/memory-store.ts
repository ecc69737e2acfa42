// The default Idempotency-Key store: a bounded LRU in process memory. Entries expire on their own deadline
// (claims sooner than responses); past the size bound the least recently used key is dropped, so memory stays
// flat whatever clients send.
import { decide, type Claim, type IdempotencyRecord, type IdempotencyStore, type StoreTimings, type StoredResponse } from './store.ts';

interface Entry extends IdempotencyRecord {
  expiresAt: number;
}

export interface MemoryStoreOptions extends StoreTimings {
  maxEntries: number;
  now?: () => number;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly options: MemoryStoreOptions;
  private readonly now: () => number;

  constructor(options: MemoryStoreOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  async claim(key: string, fingerprint: string): Promise<Claim> {
    const existing = this.live(key);
    if (existing) {
      // Re-inserting moves the key to the young end of the Map's insertion order.
      this.entries.delete(key);
      this.entries.set(key, existing);
      return decide(existing, fingerprint);
    }
    this.put(key, { fingerprint, expiresAt: this.now() + this.options.inFlightMs });
    return { state: 'acquired' };
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    this.entries.delete(key);
    this.put(key, { fingerprint, response, expiresAt: this.now() + this.options.replayMs });
  }

  async release(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry && !entry.response) this.entries.delete(key);
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private put(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
