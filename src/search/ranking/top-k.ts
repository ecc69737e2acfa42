import { StampSet } from '../stamp-set.ts';

// The k smallest of m numeric keys, ascending. A bounded max-heap costs O(m log k) rather than sorting every key's
// O(m log m), which dominated keyword latency for a first page of a broad query.
export function smallestK(keys: Float64Array, m: number, k: number): Float64Array {
  if (k <= 0 || m === 0) return new Float64Array(0);
  if (k * 4 >= m) return keys.slice(0, m).sort().subarray(0, Math.min(k, m));
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < m; i++) {
    const key = keys[i]!;
    if (size < k) {
      // Sift up.
      let at = size++;
      heap[at] = key;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! >= heap[at]!) break;
        const t = heap[parent]!;
        heap[parent] = heap[at]!;
        heap[at] = t;
        at = parent;
      }
    } else if (key < heap[0]!) {
      // Replace the largest kept key and sift down.
      heap[0] = key;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const right = left + 1;
        const bigger = right < k && heap[right]! > heap[left]! ? right : left;
        if (heap[at]! >= heap[bigger]!) break;
        const t = heap[at]!;
        heap[at] = heap[bigger]!;
        heap[bigger] = t;
        at = bigger;
      }
    }
  }
  return heap.subarray(0, size).sort();
}

/**
 * The k documents with the smallest keys among those offered, each document once at its smallest key: a bounded
 * max-heap whose largest key (`limit`) is the bar a new document must pass, which is what lets a search skip
 * whole blocks of postings that cannot pass it.
 */
export class TopDocs {
  private keys = new Float64Array(64);
  private docs = new Uint32Array(64);
  private readonly members: StampSet;
  private size = 0;
  private k = 0;

  constructor(catalogSize: number) {
    this.members = new StampSet(catalogSize);
  }

  reset(k: number): void {
    if (k > this.keys.length) {
      this.keys = new Float64Array(k);
      this.docs = new Uint32Array(k);
    }
    this.k = k;
    this.size = 0;
    this.members.next();
  }

  /** A key must be below this to enter: the largest kept key once k are kept, Infinity before. */
  get limit(): number {
    return this.size < this.k ? Infinity : this.keys[0]!;
  }

  offer(doc: number, key: number): void {
    const { keys, docs } = this;
    if (this.members.has(doc)) {
      // Seen before through another term of the word: keep its better key.
      let at = 0;
      while (docs[at] !== doc) at++;
      if (key < keys[at]!) {
        keys[at] = key;
        this.siftDown(at);
      }
      return;
    }
    if (this.size < this.k) {
      let at = this.size++;
      keys[at] = key;
      docs[at] = doc;
      this.members.mark(doc);
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (keys[parent]! >= keys[at]!) break;
        this.swap(parent, at);
        at = parent;
      }
    } else if (key < keys[0]!) {
      this.members.delete(docs[0]!);
      keys[0] = key;
      docs[0] = doc;
      this.members.mark(doc);
      this.siftDown(0);
    }
  }

  /** The kept documents, smallest key first (empties the heap: the largest is taken off the top each time). */
  sorted(): number[] {
    const out = new Array<number>(this.size);
    while (this.size > 0) {
      out[this.size - 1] = this.docs[0]!;
      this.size--;
      this.swap(0, this.size);
      this.siftDown(0);
    }
    return out;
  }

  private siftDown(from: number): void {
    const { keys, size } = this;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) return;
      const right = left + 1;
      const bigger = right < size && keys[right]! > keys[left]! ? right : left;
      if (keys[at]! >= keys[bigger]!) return;
      this.swap(at, bigger);
      at = bigger;
    }
  }

  private swap(a: number, b: number): void {
    const { keys, docs } = this;
    const key = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = key;
    const doc = docs[a]!;
    docs[a] = docs[b]!;
    docs[b] = doc;
  }
}
