// The shim's answer caches keep an answer only when its request comes a second time. Most distinct searches are
// asked once (the long tail); keeping each of them would push out the answers that are asked again, and every
// evicted answer would be old-generation garbage: on 20,000 distinct searches that garbage set off a full
// collection every ~0.4 s, 5 to 20 ms each, and a p99 of 45 to 90 ms (npm run bench, q-unique). The doorkeeper
// that remembers "asked once" is a fixed table of hashes: it allocates nothing, and a collision only admits an
// answer one request early.
import { LRUCache } from 'lru-cache';
import { hash32 } from '../../src/search/tokenizer.ts';

/** Requests remembered as asked once; older ones are forgotten as the table's slots are reused. */
const DOORKEEPER_SLOTS = 1 << 16;

export class AdmittingCache<V extends NonNullable<unknown>> {
  private readonly kept: LRUCache<string, V>;
  private readonly askedOnce: Uint32Array;

  constructor(options: LRUCache.Options<string, V, unknown>, slots = DOORKEEPER_SLOTS) {
    this.kept = new LRUCache<string, V>(options);
    this.askedOnce = new Uint32Array(slots);
  }

  get(key: string): V | undefined {
    return this.kept.get(key);
  }

  /** Keeps the value when the key was offered before; true when it was kept. */
  offer(key: string, value: V): boolean {
    // 0 marks an empty slot, so no key hashes to it.
    const hash = hash32(key) || 1;
    const slot = hash % this.askedOnce.length;
    if (this.askedOnce[slot] !== hash) {
      this.askedOnce[slot] = hash;
      return false;
    }
    this.kept.set(key, value);
    return true;
  }

  get size(): number {
    return this.kept.size;
  }
}
