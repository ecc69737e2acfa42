// Memory for the bodies of the listing routes, reused once a body is written. Made fresh for each request, a body
// lay dead in malloc's heap until the next young-generation collection freed it, and the heap kept the high-water
// mark of those dead bodies as RSS. A leased body goes back when its response has been handed to the kernel
// (write-batch.ts), and the next body of its size class is written into the same memory. The decision and what it
// saved: docs/decisions/009-body-pool.md.

/** log2 of the smallest class: smaller bodies come from Node's own buffer pool. */
const MIN_CLASS = 12;
/** log2 of the largest class: larger bodies (pages of long listings, big batches) are rare; they are allocated as before. */
const MAX_CLASS = 18;
/** Memory kept for reuse, all classes together: the bodies in flight at once (a few per connection) fit many times. */
const KEPT_BYTES = 8 * 1024 * 1024;

const free: ArrayBuffer[][] = Array.from({ length: MAX_CLASS + 1 }, () => []);
/** Blocks out on lease: a block goes back at most once, so no two leases ever share memory. */
const leased = new WeakSet<ArrayBufferLike>();
let keptBytes = 0;

/** The power of two a block for `size` bytes has (2^class ≥ size). */
function classOf(size: number): number {
  return 32 - Math.clz32(size - 1);
}

/**
 * A buffer of `size` bytes, its contents undefined, for a body that `giveBack` returns once it has been written and
 * nothing else reads it. A caller that keeps the bytes longer (an answer cache) keeps a copy.
 */
export function leaseBody(size: number): Buffer {
  const c = classOf(size);
  if (c < MIN_CLASS || c > MAX_CLASS) return Buffer.allocUnsafe(size);
  let block = free[c]!.pop();
  if (block) keptBytes -= block.byteLength;
  else block = new ArrayBuffer(1 << c);
  leased.add(block);
  return Buffer.from(block, 0, size);
}

/** Whether `body` was leased and is not yet given back. */
export function isLeased(body: Buffer): boolean {
  return leased.has(body.buffer);
}

/** Returns a leased body's memory for reuse; any other buffer, or one given back already, is left to the collector. */
export function giveBack(body: Buffer): void {
  const block = body.buffer;
  // Leased blocks are all ArrayBuffers; the instanceof test only narrows the type for the free list.
  if (!(block instanceof ArrayBuffer) || !leased.delete(block)) return;
  if (keptBytes + block.byteLength > KEPT_BYTES) return;
  free[classOf(block.byteLength)]!.push(block);
  keptBytes += block.byteLength;
}
