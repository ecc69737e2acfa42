// The site's one on-demand page, /browse: rendered by the Astro server bundle of the build being served
// (<buildDir>/astro/server/entry.mjs, made by build/site-stage.ts), with `locals` that search the live catalog
// through the same parser and search function as GET /api/v1/listings. Every other page is a static file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CatalogError } from '../../src/domain/errors.ts';
import { encodeCursor, parseListingQuery, queryFingerprint } from '../../src/domain/listing-query.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { BROWSE_PAGE_SIZE, BROWSE_PARAMS, browseParams, type BrowseLocals, type BrowseOutcome } from '../../src/site/browse.ts';
import type { Snapshot } from '../catalog/live-catalog.ts';
import type { Route } from '../http/router.ts';
import type { Services } from '../services.ts';
import { listingsJson } from '../search/listing-search.ts';

/** The middleware-mode handler of @astrojs/node. */
type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void, locals: object) => Promise<void>;

const BROWSE_NAMES: ReadonlySet<string> = new Set(BROWSE_PARAMS);

/** The search behind /browse over one snapshot; an invalid parameter is an outcome the page shows, not a throw. */
export function browseSearch(services: Services, snapshot: Snapshot, search: URLSearchParams): BrowseOutcome {
  const params = browseParams(search);
  // Repeated parameters go through as they came, so /browse refuses what the API refuses.
  const apiParams = new URLSearchParams();
  for (const [name, value] of search) if (BROWSE_NAMES.has(name)) apiParams.append(name, value);
  apiParams.set('limit', String(BROWSE_PAGE_SIZE));
  try {
    const query = parseListingQuery(apiParams, true);
    const { result } = services.listingSearch(snapshot, query);
    const items = listingsJson(services.config.baseUrl, snapshot, result.docs).map((json) => JSON.parse(json) as Listing);
    services.signals?.appeared(snapshot, result.docs, query.offset);
    const nextCursor = result.hasMore ? encodeCursor(query.offset + query.limit, queryFingerprint(query)) : null;
    return { ok: true, params, items, offset: query.offset, nextCursor };
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

export function siteRoutes(services: Services): Route[] {
  // The server bundle of the snapshot being served, imported on first use and again after a swap. A module graph
  // cannot be unloaded: each rebuild's bundle (about 1 MB of code) stays in memory once it has been used.
  let loaded: { buildDir: string; handler: Promise<AstroHandler>; categories: BrowseLocals['categories'] } | undefined;
  const forSnapshot = (snapshot: Snapshot) => {
    if (loaded?.buildDir !== snapshot.buildDir) {
      const entry = join(snapshot.buildDir, 'astro', 'server', 'entry.mjs');
      // A mirror (build/mirror) or a build made without the site stage has static pages but no server bundle.
      const handler = existsSync(entry)
        ? import(pathToFileURL(entry).href).then((module: { handler: AstroHandler }) => module.handler)
        : Promise.reject(new Error(`${entry} does not exist`));
      // Loading failures are reported per request (503) and retried on the next one.
      handler.catch(() => {
        if (loaded?.handler === handler) loaded = undefined;
      });
      loaded = { buildDir: snapshot.buildDir, handler, categories: categoryOptions(snapshot) };
    }
    return loaded;
  };
  services.catalog.onSwap(() => {
    loaded = undefined;
  });

  return [
    {
      method: 'GET',
      path: SITE_PATHS.browse,
      handler: async (ctx) => {
        const snapshot = services.catalog.current;
        const site = forSnapshot(snapshot);
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
        let unmatched = false;
        await handler(ctx.req, ctx.res, () => {
          unmatched = true;
        }, locals);
        if (unmatched) throw new CatalogError('not_found', `This build has no page at ${ctx.path}.`);
      },
    },
  ];
}
