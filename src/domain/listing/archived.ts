// Listings whose repository or entry says they are no longer maintained where they are listed: a repository GitHub
// marks archived or reports moved (the record's `archived` and `movedTo`, from catalog collect), a repository named
// "<name>-archived", a name marked "(Archived)", or an entry whose same-named twin sits in "<repo>-archived" (the
// server moved there: modelcontextprotocol/servers → modelcontextprotocol/servers-archived). The build marks them
// (Listing.archived) and the site's top lists leave them out, so a moved copy does not lead a list on the stars of
// the repository it left; a listing that moved to a repository with a live listing of its own (its successor) is
// ranked right below that successor wherever its figures would put it above (runtime-artifacts.ts).

export interface ArchivableListing {
  type: string;
  repo: string;
  name: string;
  /** The record's own word: its repository is archived. */
  archived?: boolean | undefined;
  /** The record's own word: its repository moved (renamed), to this owner/name. */
  movedTo?: string | undefined;
}

const ARCHIVED_NAME = /\s*\(archived\)\s*$/i;
const key = (type: string, repo: string, name: string) => `${type}\u0000${repo.toLowerCase()}\u0000${name.replace(ARCHIVED_NAME, '').toLowerCase()}`;

/** Every listing's (type, repository, name), to find the twins of moved listings. */
export function archiveIndex(listings: Iterable<ArchivableListing>): Set<string> {
  const keys = new Set<string>();
  for (const listing of listings) keys.add(key(listing.type, listing.repo, listing.name));
  return keys;
}

/** Why a listing is archived, in words, or undefined when nothing says it is. */
export function archivedReason(listing: ArchivableListing, index: ReadonlySet<string>): string | undefined {
  if (listing.movedTo && listing.movedTo.toLowerCase() !== listing.repo.toLowerCase()) return `moved to ${listing.movedTo}`;
  if (listing.archived === true || /-archived$/i.test(listing.repo)) return `its repository, ${listing.repo}, is archived`;
  const movedTo = `${listing.repo}-archived`;
  if (index.has(key(listing.type, movedTo, listing.name))) return `moved to ${movedTo}`;
  if (ARCHIVED_NAME.test(listing.name)) return 'marked archived by its source';
  return undefined;
}

/**
 * The live successor of each listing that moved: the listing of the same type and name in the repository it moved
 * to (`movedTo`), itself neither archived nor moved. Positions in `listings`: moved → successor.
 */
export function liveSuccessors(listings: readonly ArchivableListing[]): Map<number, number> {
  const index = archiveIndex(listings);
  const live = new Map<string, number>();
  listings.forEach((listing, i) => {
    if (!archivedReason(listing, index)) live.set(key(listing.type, listing.repo, listing.name), i);
  });
  const successors = new Map<number, number>();
  listings.forEach((listing, i) => {
    const successor = listing.movedTo ? live.get(key(listing.type, listing.movedTo, listing.name)) : undefined;
    if (successor !== undefined && successor !== i) successors.set(i, successor);
  });
  return successors;
}
