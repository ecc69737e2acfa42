// The site's one on-demand page, /browse: rendered by the Astro server bundle of the build being served
// (<buildDir>/astro/server/entry.mjs, made by build/stages/site-stage.ts), with `locals` that search the live catalog
// through the same parser and search function as GET /api/v1/listings. Every other page is a static file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { parseListingQuery, queryFingerprint } from '../../src/domain/contract/listing-query.ts';
import { encodePageToken } from '../../src/domain/contract/page-token.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { BROWSE_PAGE_SIZE, BROWSE_PARAMS, browseParams, type BrowseLocals, type BrowseOutcome } from '../../src/page-model/browse-locals.ts';
import { snapshotResource, type Snapshot } from '../catalog/snapshot.ts';
import type { HandlersFor } from '../http/handler.ts';
import { siteBuildingReply } from '../http/site-building.ts';
import type { Services } from '../services.ts';
import { listingsJson } from '../catalog/listing-json.ts';

/** The middleware-mode handler of @astrojs/node. */
type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void, locals: object) => Promise<void>;

const BROWSE_NAMES: ReadonlySet<string> = new Set(BROWSE_PARAMS);

/** The search behind /browse over one snapshot; an invalid parameter is an outcome the page shows, not a throw. */
export async function browseSearch(services: Services, snapshot: Snapshot, search: URLSearchParams): Promise<BrowseOutcome> {
  const params = browseParams(search);
  // Repeated parameters go through as they came, so /browse refuses what the API refuses.
  const apiParams = new URLSearchParams();
  for (const [name, value] of search) if (BROWSE_NAMES.has(name)) apiParams.append(name, value);
  apiParams.set('limit', String(BROWSE_PAGE_SIZE));
  // People choosing a skill see one listing per copy group; its page names the copies.
  apiParams.set('distinct', 'true');
  try {
    const query = parseListingQuery(apiParams, true);
    const { result } = await services.listingSearch(snapshot, query);
    const items = listingsJson(services.config.baseUrl, snapshot, result.docs).map((json) => JSON.parse(json) as Listing);
    services.signals?.appeared(snapshot, result.docs, query.offset);
    const nextCursor = result.hasMore ? encodePageToken(query.offset + query.limit, queryFingerprint(query)) : null;
    // The page before: the first page has no cursor, so a page at most one page in goes back to none.
    const before = query.offset - query.limit;
    const previousCursor = query.offset === 0 ? null : before <= 0 ? '' : encodePageToken(before, queryFingerprint(query));
    return { ok: true, params, items, offset: query.offset, total: result.total, nextCursor, previousCursor, corrected: result.corrected };
  } catch (error) {
    if (error instanceof CatalogError) return { ok: false, params, message: error.message, resolution: error.resolution };
    throw error;
  }
}

/** Every category name of a snapshot once, by label (the same slug is a category of several types). */
function categoryOptions(snapshot: Snapshot): BrowseLocals['categories'] {
  const byName = new Map<string, string>();
  for (const category of snapshot.store.categories) byName.set(category.name, category.label);
  return [...byName].map(([name, label]) => ({ name, label })).sort((a, b) => a.label.localeCompare(b.label));
}

/** The server bundle of a snapshot: imported on first use (a module graph cannot be unloaded: each rebuild's
 * bundle stays in memory once it has been used). */
const SITE_BUNDLE = snapshotResource('site-bundle', (snapshot) => {
  const entry = join(snapshot.buildDir, 'astro', 'server', 'entry.mjs');
  // A mirror (build/mirror) or a build made without the site stage has static pages but no server bundle.
  const handler = existsSync(entry)
    ? import(pathToFileURL(entry).href).then((module: { handler: AstroHandler }) => module.handler)
    : Promise.reject(new Error(`${entry} does not exist`));
  handler.catch(() => undefined);
  return { handler, categories: categoryOptions(snapshot) };
});

export function siteHandlers(services: Services): HandlersFor<'browsePage'> {
  return {
    browsePage: async (ctx) => {
      if (services.site?.building) return siteBuildingReply(ctx.headers);
      const snapshot = services.catalog.current;
      const site = snapshot.get(SITE_BUNDLE);
      let handler: AstroHandler;
      try {
        handler = await site.handler;
      } catch (error) {
        services.logger.warn({ err: error, buildDir: snapshot.buildDir }, 'the site server bundle could not be loaded');
        throw new CatalogError('service_unavailable', 'The search page is not available in this build.', {
          resolution: `Search with GET /api/v1/listings?q=...; the page returns after the next build.`,
        });
      }
      const locals: BrowseLocals = { browse: (search) => browseSearch(services, snapshot, search), categories: site.categories };
      return {
        status: 200,
        node: async (req, res) => {
          let unmatched = false;
          await handler(
            req,
            res,
            () => {
              unmatched = true;
            },
            locals,
          );
          if (unmatched) throw new CatalogError('not_found', `This build has no page at ${ctx.path}.`);
        },
      };
    },
  };
}
