// The site's URL scheme, in one place: pages, the sitemap, llms.txt, feeds and the API's `url` fields
// all build their links with these.
import type { ListingType } from './listing/listing-types.ts';

export const SITE_PATHS = {
  home: '/',
  browse: '/browse',
  login: '/login',
  mcpHub: '/mcp',
  docsIndex: '/docs/',
  listing: (slug: string) => `/listings/${slug}/`,
  type: (type: ListingType) => `/types/${type}/`,
  category: (type: ListingType, category: string) => `/categories/${type}/${category}/`,
  compare: (type: ListingType, category: string) => `/compare/${type}/${category}/`,
  doc: (slug: string) => `/docs/${slug}/`,
  /** An owner (the first part of a listing repo), lower-cased: GitHub owners are case-insensitive. */
  owner: (owner: string) => `/owners/${encodeURIComponent(owner.toLowerCase())}/`,
  /** One part of the listing ranks (src/page-model/rank-parts.ts), which listing pages load instead of carrying them. */
  ranks: (part: number) => `/ranks/${part}.json`,
} as const;

/**
 * A listing page's request path (/listings/{slug}/, the slash optional). It answers HTML, or Markdown to an Accept
 * that prefers text/markdown (server/discovery/agent-readiness.ts), so every answer varies by Accept: the shim and
 * the generated front both send LISTING_PAGE_VARY on its HTML.
 */
export const LISTING_PAGE_PATH = /^\/listings\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/;
export const LISTING_PAGE_VARY = 'Accept, Accept-Encoding';
