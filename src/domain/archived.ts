// Listings whose repository or entry says they are no longer maintained where they are listed: a repository named
// "<name>-archived", a name marked "(Archived)", or an entry whose same-named twin sits in "<repo>-archived" (the
// server moved there: modelcontextprotocol/servers → modelcontextprotocol/servers-archived). The build marks them
// (Listing.archived) and the site's top lists leave them out, so a moved copy does not lead a list on the stars of
// the repository it left.

export interface ArchivableListing {
  type: string;
  repo: string;
  name: string;
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
  if (/-archived$/i.test(listing.repo)) return `its repository, ${listing.repo}, is archived`;
  const movedTo = `${listing.repo}-archived`;
  if (index.has(key(listing.type, movedTo, listing.name))) return `moved to ${movedTo}`;
  if (ARCHIVED_NAME.test(listing.name)) return 'marked archived by its source';
  return undefined;
}
