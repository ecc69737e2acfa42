// The shim's answer caches keep an answer only when its request comes a second time, and, once full, only when its
// request has been asked more often lately than the answer it would push out. Most distinct searches are asked once
// (the long tail); keeping each of them would push out the answers that are asked again, and every evicted answer
// would be old-generation garbage that set off frequent full collections under a long tail of distinct searches
// (docs/decisions/008-admitting-answer-cache.md). The doorkeeper that remembers "asked once"
// is a fixed table of hashes: it allocates nothing, and a collision only admits an answer one request early.
// A tail that comes round twice (a crawler, an agent sweeping a vocabulary) passes the doorkeeper too: measured on
// the bench's searches asked in a cycle, admitting every second request kept replacing the whole cache, and the
// evicted bodies held memory until a full collection. The frequency test (TinyLFU: frequency-sketch.ts)
// keeps what is asked more often than that tail.
import { LRUCache } from 'lru-cache';
import { hash32 } from '../../src/search/tokenizer.ts';
import { FrequencySketch } from './frequency-sketch.ts';

/** Requests remembered as asked once; older ones are forgotten as the table's slots are reused. */
const DOORKEEPER_SLOTS = 1 << 16;

export class AdmittingCache<V extends NonNullable<unknown>> {
  private readonly kept: LRUCache<string, V>;
  private readonly askedOnce: Uint32Array;
  private readonly asked = new FrequencySketch();
  private readonly sizeOf: ((value: V, key: string) => number) | undefined;

  constructor(options: LRUCache.Options<string, V, unknown>, slots = DOORKEEPER_SLOTS) {
    this.kept = new LRUCache<string, V>(options);
    this.askedOnce = new Uint32Array(slots);
    this.sizeOf = options.sizeCalculation;
  }

  /** The kept answer, counting the request (a miss is counted when its answer is offered). */
  get(key: string): V | undefined {
    const value = this.kept.get(key);
    if (value !== undefined) this.asked.add(hashOf(key));
    return value;
  }

  /**
   * Keeps the value when the key was offered before and either there is room or the key has been asked more often
   * than the least recently used answer, which it then replaces; true when it was kept.
   */
  offer(key: string, value: V): boolean {
    const hash = hashOf(key);
    const asked = this.asked.add(hash);
    const slot = hash % this.askedOnce.length;
    if (this.askedOnce[slot] !== hash) {
      this.askedOnce[slot] = hash;
      return false;
    }
    if (!this.fits(key, value)) {
      const victim = this.kept.rkeys().next();
      if (!victim.done && this.asked.estimate(hashOf(victim.value)) >= asked) return false;
    }
    this.kept.set(key, value);
    return true;
  }

  get size(): number {
    return this.kept.size;
  }

  /** Whether keeping the value needs no other answer to go. */
  private fits(key: string, value: V): boolean {
    if (this.kept.has(key)) return true;
    if (this.sizeOf) return this.kept.calculatedSize + this.sizeOf(value, key) <= this.kept.maxSize;
    return this.kept.size < this.kept.max;
  }
}

/** 0 marks an empty doorkeeper slot, so no key hashes to it. */
function hashOf(key: string): number {
  return hash32(key) || 1;
}
