// The contract between the /browse page (server-rendered per request) and the shim that renders it: the shim
// passes these `locals` to Astro's handler, the page calls them. The search runs in the shim, over the live
// catalog, through the same parser and search function as GET /api/v1/listings.
import type { Listing } from '../domain/schemas.ts';

/** The parameters /browse takes (the rest of a query string is ignored). */
export const BROWSE_PARAMS = ['q', 'type', 'category', 'owner', 'sort', 'cursor', 'offset'] as const;
export type BrowseParams = Record<(typeof BROWSE_PARAMS)[number], string>;

/** Results per /browse page. */
export const BROWSE_PAGE_SIZE = 20;

export type BrowseOutcome =
  /** `corrected`: the query searched instead of `q`, which no listing matched (Search-Corrected). */
  | {
      ok: true;
      params: BrowseParams;
      items: Listing[];
      offset: number;
      /** Listings the search ranks across all pages (the API's `total`). */
      total: number;
      nextCursor: string | null;
      /** The cursor of the page before ('' for the first page); null on the first page. */
      previousCursor: string | null;
      corrected: string | undefined;
    }
  | { ok: false; params: BrowseParams; message: string; resolution: string };

export interface BrowseLocals {
  browse(search: URLSearchParams): Promise<BrowseOutcome>;
  /** Every category of the live catalog (for the filter), by label. */
  categories: ReadonlyArray<{ name: string; label: string }>;
}

export function browseParams(search: URLSearchParams): BrowseParams {
  return Object.fromEntries(BROWSE_PARAMS.map((name) => [name, search.get(name) ?? ''])) as BrowseParams;
}

/** The heading of the results: the query searched (the corrected one when `q` was corrected). */
export function resultsHeading(q: string, corrected: string | undefined): string {
  if (corrected !== undefined) return `Results for “${corrected}”`;
  return q ? `Results for “${q}”` : 'Listings';
}

/** What the status line says first when `q` was corrected (empty when it was not). */
export function correctionNote(q: string, corrected: string | undefined): string {
  return corrected === undefined ? '' : `Showing matches for “${corrected}”: no listing holds every word of “${q}”. `;
}

/** The /browse URL of a query (empty parameters left out). */
export function browseHref(path: string, params: Partial<BrowseParams>): string {
  const search = new URLSearchParams();
  for (const name of BROWSE_PARAMS) if (params[name]) search.set(name, params[name]);
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}
