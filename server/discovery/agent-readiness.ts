// What makes the site readable by agents that arrive at a page rather than at the API: a Link header on the home
// page and the API root naming the machine-readable descriptions (RFC 8288; api-catalog per RFC 9727, service-desc
// per RFC 8631) and on every other page the API catalog, and a Markdown rendering of a listing page for
// `Accept: text/markdown`.
import type { IncomingHttpHeaders } from 'node:http';
import { listingMarkdown } from '../../src/domain/listing/listing-markdown.ts';
import { LISTING_PAGE_PATH } from '../../src/domain/site-paths.ts';
import type { Listing, ListingFile } from '../../src/domain/schemas.ts';
import { listingsJson } from '../catalog/listing-json.ts';
import { negotiateMediaType } from '../http/media-types.ts';
import { json, type Reply } from '../http/handler.ts';
import type { Services } from '../services.ts';

/** The Link header values: strings built once per origin. */
export { apiCatalogLink, discoveryLinkKind, discoveryLinks } from '../../src/domain/contract/discovery-links.ts';

/** A listing page's path (/listings/{slug}/): its answers vary by Accept (HTML or Markdown). */
export function isListingPage(path: string): boolean {
  return LISTING_PAGE_PATH.test(path);
}

/**
 * A listing page as Markdown when the request prefers text/markdown to text/html; undefined when the page should
 * be served as usual (HTML from the build). Unknown slugs fall through to the usual 404.
 */
export function listingMarkdownReply(services: Services, request: { path: string; headers: IncomingHttpHeaders }): Reply | undefined {
  const match = LISTING_PAGE_PATH.exec(request.path);
  if (!match) return undefined;
  if (negotiateMediaType(request.headers.accept, ['text/html', 'text/markdown']) !== 1) return undefined;
  const snapshot = services.catalog.current;
  const doc = snapshot.store.findDoc(match[1]!);
  if (doc === undefined) return undefined;
  const listing = JSON.parse(listingsJson(services.config.baseUrl, snapshot, [doc])[0]!) as Listing;
  const files = JSON.parse(snapshot.store.readFilesJson(doc)) as ListingFile[];
  const api = `${services.config.baseUrl}/api/v1/listings/${encodeURIComponent(listing.slug)}`;
  services.signals?.opened(snapshot, doc);
  // The adapter leaves the body out of a HEAD answer, keeping Content-Length right.
  return json(200, listingMarkdown(listing, files, api), { Vary: 'Accept', 'Cache-Control': 'public, max-age=300' }, 'text/markdown; charset=utf-8');
}
