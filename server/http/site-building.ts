// The answer for a page while a first start's site stage still renders the site: the API already answers, the
// pages do not exist yet. A browser gets a short page that says so and looks again; any other client the documented
// 503 error. Both carry Retry-After. Once the pages are rendered, the rest of the first build (shards, llms.txt,
// sitemaps, OpenAPI and the other generated files) answers the same way until the build ends.
import type { IncomingHttpHeaders } from 'node:http';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { errorReply, json, type Reply } from './handler.ts';
import { negotiateMediaType } from './media-types.ts';

/** Seconds a client waits before asking again: a site stage renders for tens of seconds. */
export const SITE_BUILDING_RETRY_SECONDS = 10;

/** A short page that says what is not there yet and looks again. */
const waitPage = (title: string, heading: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${SITE_BUILDING_RETRY_SECONDS}">
<title>${title}</title>
</head>
<body>
<h1>${heading}</h1>
${body}
</body>
</html>
`;

const MESSAGE = 'The site is still being built (first start); its pages answer when the build ends.';
const RESOLUTION = `Retry in ${SITE_BUILDING_RETRY_SECONDS} seconds; the API and search answer already: GET /api/v1/listings?q=...`;
const PAGE = waitPage(
  'Building the site',
  'The site is still being built',
  `<p>This is the catalog's first start: the pages are being rendered and this one appears when they are done.
This page looks again every ${SITE_BUILDING_RETRY_SECONDS} seconds.</p>
<p>The API and search answer already: <a href="/api/v1/listings?q=mcp">/api/v1/listings?q=mcp</a>.</p>`,
);

const COMPLETING_MESSAGE = 'This file of the site is still being written (first start); the pages answer already, this file when the build ends.';
const COMPLETING_RESOLUTION = `Retry in ${SITE_BUILDING_RETRY_SECONDS} seconds; the pages, the API and search answer already.`;
const COMPLETING_PAGE = waitPage(
  'Finishing the site',
  'This file is still being written',
  `<p>This is the catalog's first start: the pages answer already, and the build is writing the rest of the site
(shards, llms.txt, sitemaps, the OpenAPI document). This page looks again every ${SITE_BUILDING_RETRY_SECONDS} seconds.</p>
<p><a href="/">The home page</a> and the API answer already: <a href="/api/v1/listings?q=mcp">/api/v1/listings?q=mcp</a>.</p>`,
);

function unavailable(headers: IncomingHttpHeaders, page: string, message: string, resolution: string): Reply {
  const retry = { 'Retry-After': String(SITE_BUILDING_RETRY_SECONDS), 'Cache-Control': 'no-store' };
  if (negotiateMediaType(headers.accept, ['application/json', 'text/html']) === 1) return json(503, page, retry, 'text/html; charset=utf-8');
  // Returned, not thrown: an expected answer, not a failure to log.
  return errorReply(new CatalogError('service_unavailable', message, { resolution, headers: retry }));
}

/** A page asked for before the first build has rendered the site. */
export function siteBuildingReply(headers: IncomingHttpHeaders): Reply {
  return unavailable(headers, PAGE, MESSAGE, RESOLUTION);
}

/** A file asked for after the first build rendered the pages, before it wrote the rest of the site. */
export function siteCompletingReply(headers: IncomingHttpHeaders): Reply {
  return unavailable(headers, COMPLETING_PAGE, COMPLETING_MESSAGE, COMPLETING_RESOLUTION);
}
