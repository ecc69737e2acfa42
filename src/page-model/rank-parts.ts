// A listing's ranks (by installs and by stars among the listings of its type, and of how many) move every day for
// nearly every listing: one listing added or removed changes "of N" on every page of its type. Kept in a listing's
// page they would make every page differ from the day before, and an incremental build could carry none over
// (docs/decisions/012-incremental-pages.md). They live instead in RANK_PARTS small JSON files, each listing's in the
// part its slug hashes to, which the page's script reads; the page itself then changes only when its listing does.

/** How many parts the ranks are split into: fixed, so that a page's part (written into the page) never moves. */
export const RANK_PARTS = 256;

/** 32-bit FNV-1a of a string's UTF-16 code units: a stable spread of names over parts and shares. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The part a listing's ranks are in: FNV-1a of the slug, mod RANK_PARTS. */
export function rankPart(slug: string): number {
  return fnv1a(slug) % RANK_PARTS;
}

/** One part's content: slug → [rank by installs, rank by stars, listings of its type]. */
export type RankPart = Record<string, [number, number, number]>;
