// The answer for a page while a first start's site stage still renders the site: the API already answers, the
// pages do not exist yet. A browser gets a short page that says so and looks again; any other client the documented
// 503 error. Both carry Retry-After.
import type { IncomingHttpHeaders } from 'node:http';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { errorReply, json, type Reply } from './handler.ts';
import { negotiateMediaType } from './media-types.ts';

/** Seconds a client waits before asking again: a site stage renders for tens of seconds. */
export const SITE_BUILDING_RETRY_SECONDS = 10;

const MESSAGE = 'The site is still being built (first start); its pages answer when the build ends.';
const RESOLUTION = `Retry in ${SITE_BUILDING_RETRY_SECONDS} seconds; the API and search answer already: GET /api/v1/listings?q=...`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${SITE_BUILDING_RETRY_SECONDS}">
<title>Building the site</title>
</head>
<body>
<h1>The site is still being built</h1>
<p>This is the catalog's first start: the pages are being rendered and this one appears when they are done.
This page looks again every ${SITE_BUILDING_RETRY_SECONDS} seconds.</p>
<p>The API and search answer already: <a href="/api/v1/listings?q=mcp">/api/v1/listings?q=mcp</a>.</p>
</body>
</html>
`;

export function siteBuildingReply(headers: IncomingHttpHeaders): Reply {
  const retry = { 'Retry-After': String(SITE_BUILDING_RETRY_SECONDS), 'Cache-Control': 'no-store' };
  if (negotiateMediaType(headers.accept, ['application/json', 'text/html']) === 1) return json(503, PAGE, retry, 'text/html; charset=utf-8');
  // Returned, not thrown: an expected answer, not a failure to log.
  return errorReply(new CatalogError('service_unavailable', MESSAGE, { resolution: RESOLUTION, headers: retry }));
}
