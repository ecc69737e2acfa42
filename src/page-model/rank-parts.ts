// A listing's ranks (by installs and by stars among the listings of its type, and of how many) move every day for
// nearly every listing: one listing added or removed changes "of N" on every page of its type. An owner's rank among
// the owners of a type moves as soon as any owner's sum passes another's. Kept in the pages they would make every
// page differ from the day before, and an incremental build could carry none over
// (docs/decisions/012-incremental-pages.md). They live instead in RANK_PARTS small JSON files, each listing's in the
// part its slug hashes to and each owner's in the part its lower-cased name hashes to, which the pages' scripts read;
// a page itself then changes only when what it lists does.
import type { ListingType } from '../domain/listing/listing-types.ts';

/** How many parts the ranks are split into: fixed, so that a page's part (written into the page) never moves. */
export const RANK_PARTS = 256;

/** 32-bit FNV-1a of a string's UTF-16 code units: a stable spread of names over parts and shares. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The part a listing's ranks (by its slug) or an owner's (by its lower-cased name) are in: FNV-1a, mod RANK_PARTS. */
export function rankPart(slugOrOwner: string): number {
  return fnv1a(slugOrOwner) % RANK_PARTS;
}

/** One part's content. */
export interface RankPart {
  /** slug → [rank by installs, rank by stars, listings of its type] */
  listings: Record<string, [number, number, number]>;
  /** lower-cased owner (of an owner page) → per type it publishes: [rank among the type's owners, owners of the type] */
  owners: Record<string, Partial<Record<ListingType, [number, number]>>>;
}
