// What makes the site readable by agents that arrive at a page rather than at the API: a Link header on pages and
// the API root naming the machine-readable descriptions (RFC 8288; api-catalog per RFC 9727, service-desc per
// RFC 8631), and a Markdown rendering of a listing page for `Accept: text/markdown`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listingMarkdown } from '../../src/domain/listing-markdown.ts';
import type { Listing, ListingFile } from '../../src/domain/schemas.ts';
import { listingsJson } from '../search/listing-search.ts';
import { negotiateMediaType } from '../http/media-types.ts';
import { sendText } from '../http/reply.ts';
import type { Services } from '../services.ts';

/** The Link header value: one string, built once per origin. */
export { discoveryLinks, takesDiscoveryLinks } from '../../src/domain/discovery-links.ts';

const LISTING_PAGE = /^\/listings\/([a-z0-9]+(?:-[a-z0-9]+)*)\/?$/;

/**
 * Answers a listing page as Markdown when the request prefers text/markdown to text/html; false when the page should
 * be served as usual (HTML from the build). Unknown slugs fall through to the usual 404.
 */
export function serveListingMarkdown(services: Services, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const match = LISTING_PAGE.exec(path);
  if (!match) return false;
  res.setHeader('Vary', 'Accept');
  if (negotiateMediaType(req.headers.accept, ['text/html', 'text/markdown']) !== 1) return false;
  const snapshot = services.catalog.current;
  const doc = snapshot.store.findDoc(match[1]!);
  if (doc === undefined) return false;
  const listing = JSON.parse(listingsJson(services.config.baseUrl, snapshot, [doc])[0]!) as Listing;
  const files = JSON.parse(snapshot.store.readFilesJson(doc)) as ListingFile[];
  const api = `${services.config.baseUrl}/api/v1/listings/${encodeURIComponent(listing.slug)}`;
  services.signals?.opened(snapshot, doc);
  const markdown = listingMarkdown(listing, files, api);
  // Node leaves the body out of a HEAD answer itself, keeping Content-Length right.
  sendText(res, 200, markdown, 'text/markdown; charset=utf-8', { Vary: 'Accept', 'Cache-Control': 'public, max-age=300' });
  return true;
}
