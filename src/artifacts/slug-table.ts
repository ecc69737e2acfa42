// The slug lookup of runtime/: an open-addressing hash table (linear probing) of document numbers by slug, built
// once by the build and read as a column by the shim. A Map of every slug, built at every start, delayed the first
// answer and held heap; the column costs neither (bench/records/2026-11-24-start-time.md).

/** FNV-1a over a string's UTF-16 code units: the table's hash, the same in the build and the shim. */
export function slugHash(slug: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) hash = Math.imul(hash ^ slug.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Slots for `count` slugs: a power of two at least twice the count, so probes stay short. */
function slotsFor(count: number): number {
  let slots = 2;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** Each slot holds a document number plus one (0: empty). A slug given twice keeps its last document, as a Map would. */
export function buildSlugTable(slugs: readonly string[]): Uint32Array {
  const table = new Uint32Array(slotsFor(slugs.length));
  const mask = table.length - 1;
  for (let doc = 0; doc < slugs.length; doc++) {
    let slot = slugHash(slugs[doc]!) & mask;
    while (table[slot] !== 0 && slugs[table[slot]! - 1] !== slugs[doc]) slot = (slot + 1) & mask;
    table[slot] = doc + 1;
  }
  return table;
}

/** The document of `slug`, or undefined: `isSlug(doc)` tells whether a candidate's slug is `slug`. */
export function findSlug(table: Uint32Array, slug: string, isSlug: (doc: number) => boolean): number | undefined {
  const mask = table.length - 1;
  for (let slot = slugHash(slug) & mask; table[slot] !== 0; slot = (slot + 1) & mask) {
    const doc = table[slot]! - 1;
    if (isSlug(doc)) return doc;
  }
  return undefined;
}
