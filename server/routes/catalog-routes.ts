// The catalog JSON API of SERVICE.md 4.1. Every v1 operation is served under /api/v1, /v1 and the
// unversioned /api/upstream alias; only the listing search differs (raw array on /api/upstream).
import { CatalogError, invalidParameter } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { parseListingQuery, queryFingerprint } from '../../src/domain/contract/listing-query.ts';
import { encodePageToken } from '../../src/domain/contract/page-token.ts';
import { listingsBody, type ListingsBodyOptions } from '../catalog/listing-json.ts';
import { BatchRequestSchema } from '../../src/domain/schemas.ts';
import { STAGES } from '../../src/domain/listing/stages.ts';
import { BRAND, DISCLAIMER, TAGLINE } from '../../src/domain/brand.ts';
import { SEARCH_MODE_HEADER } from '../../src/domain/contract/response-headers.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { snapshotResource } from '../catalog/snapshot.ts';
import { parseJsonBody } from '../http/body.ts';
import { json, type HandlersFor, type Reply, type RequestContext } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { createSearchCache, type CachedSearch } from '../catalog/search-cache.ts';
import { closestCategory } from '../../src/domain/listing/categories.ts';
import type { AdmittingCache } from '../catalog/admitting-cache.ts';
import { isLeased, leaseBody } from '../http/body-pool.ts';
import type { Snapshot } from '../catalog/snapshot.ts';

export const VERSIONING_POLICY = {
  current: '1',
  versions: ['1'],
  pathPrefix: '/api/v1',
  aliases: ['/v1/'],
  header: 'API-Version',
  deprecated: [],
  deprecationHeaders: ['Deprecation', 'Sunset', 'Link'],
} as const;

function checkId(id: string | undefined): string {
  if (id === undefined || id.length < LIMITS.id.min || id.length > LIMITS.id.max)
    throw invalidParameter('id', `must be ${LIMITS.id.min} to ${LIMITS.id.max} characters`);
  return id;
}

const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const OPEN_ITEMS = Buffer.from('{"items":[');

type CatalogOperations =
  | 'searchListings'
  | 'searchListingsRaw'
  | 'getListing'
  | 'getListingFiles'
  | 'batchListings'
  | 'getCatalogStats'
  | 'getMeta'
  | 'getStages'
  | 'getCategories'
  | 'getVersioningPolicy'
  | 'getSandbox';

/** A search being made for a URL, and the copy of its body the requests that waited for it share. */
interface Flight {
  answer: Promise<CachedSearch>;
  shared: Buffer | undefined;
}

/** Offers an answer to the cache; a kept one holds a copy of its page, whose leased bytes are reused once written. */
function keep(cache: AdmittingCache<CachedSearch>, key: string, answer: CachedSearch): void {
  if (cache.offer(key, answer)) answer.body = Buffer.from(answer.body);
}

export function catalogHandlers(services: Services): HandlersFor<CatalogOperations> {
  const snapshot = () => services.catalog.current;
  /** A listing body in leased memory (server/http/body-pool.ts), made once: a read by id allocates no options. */
  const leasedListing: ListingsBodyOptions = { baseUrl: services.config.baseUrl, allocate: leaseBody };
  const leasedArray: ListingsBodyOptions = { ...leasedListing, head: OPEN_ARRAY, tail: CLOSE_ARRAY };

  // Answers of one build, kept with it (a rebuild starts with an empty cache and drops the old one).
  const answers = snapshotResource('search-answers', () => createSearchCache());

  // Requests for a URL whose answer is being made wait for it (the answer cache keeps an answer from its second
  // request on, and a search can wait for a worker): concurrent requests for one page then cost one search and one
  // body, not one each; otherwise concurrent requests for one large page each made a body until the first was
  // cached (bench/records/2026-11-23-answer-cache.md).
  const flights = snapshotResource('search-flights', () => new Map<string, Flight>());

  const searchListings = async (ctx: RequestContext, versioned: boolean): Promise<Reply> => {
    const key = ctx.target;
    const current = snapshot();
    const cache = current.get(answers);
    const hit = cache.get(key);
    services.metrics?.searchCache(hit !== undefined);
    if (hit) {
      services.signals?.appeared(current, hit.docs, hit.offset);
      return json(200, hit.body, hit.headers);
    }
    const inFlight = current.get(flights);
    const flight = inFlight.get(key);
    if (flight) {
      const answer = await flight.answer;
      // The first request's body may be leased (given back once it is written), so the others share a copy, made
      // while they resume together: before any response of this turn is written (write-batch.ts).
      flight.shared ??= isLeased(answer.body) ? Buffer.from(answer.body) : answer.body;
      services.signals?.appeared(current, answer.docs, answer.offset);
      return json(200, flight.shared, answer.headers);
    }
    const own: Flight = { answer: answerSearch(ctx, versioned, current, cache, key), shared: undefined };
    inFlight.set(key, own);
    try {
      const answer = await own.answer;
      services.signals?.appeared(current, answer.docs, answer.offset);
      return json(200, answer.body, answer.headers);
    } finally {
      inFlight.delete(key);
    }
  };

  /** A search made (not from the cache): its page's body, offered to the cache. */
  const answerSearch = async (
    ctx: RequestContext,
    versioned: boolean,
    current: Snapshot,
    cache: AdmittingCache<CachedSearch>,
    key: string,
  ): Promise<CachedSearch> => {
    const query = parseListingQuery(ctx.query, versioned);
    if (query.category !== undefined) checkCategory(query.category, current.store.categories);
    const { result, headers } = await services.listingSearch(current, query);
    // A keyword fallback may be temporary (the embedding model still loading): never keep it past that.
    const cacheable = headers[SEARCH_MODE_HEADER] !== 'keyword-fallback';
    const answer = (body: Buffer): CachedSearch => {
      const made = { body, headers, docs: result.docs, offset: query.offset };
      if (cacheable) keep(cache, key, made);
      return { ...made, body };
    };
    if (!versioned) return answer(listingsBody(current, result.docs, leasedArray));
    let token: string | null = null;
    let next: string | null = null;
    if (result.hasMore) {
      token = encodePageToken(query.offset + query.limit, queryFingerprint(query));
      const params = new URLSearchParams(ctx.query);
      for (const name of ['offset', 'pageToken', 'cursor']) params.delete(name);
      params.set('cursor', token);
      next = `${services.config.baseUrl}${ctx.path}?${params.toString()}`;
    }
    const tail = Buffer.from(
      `],"limit":${query.limit},"offset":${query.offset},"total":${result.total},"hasMore":${result.hasMore},` +
        `"next":${JSON.stringify(next)},"pageToken":${JSON.stringify(token)},"cursor":${JSON.stringify(token)}}`,
    );
    return answer(listingsBody(current, result.docs, { ...leasedListing, head: OPEN_ITEMS, tail }));
  };

  const listingDoc = (ctx: RequestContext): number => {
    const id = checkId(ctx.params.id);
    const { store } = snapshot();
    const doc = store.findDoc(id);
    if (doc !== undefined) return doc;
    const removed = store.removed(id);
    if (removed) throw new CatalogError('gone', `The listing '${removed.id}' was removed from the catalog; it was last listed on ${removed.lastListed}.`);
    throw new CatalogError('not_found', `No listing has the id '${id}'.`);
  };

  return {
    searchListings: (ctx) => searchListings(ctx, true),
    searchListingsRaw: (ctx) => searchListings(ctx, false),
    getListing: (ctx) => {
      const doc = listingDoc(ctx);
      const current = snapshot();
      services.signals?.opened(current, doc);
      return json(200, listingsBody(current, [doc], leasedListing));
    },
    getListingFiles: (ctx) => json(200, snapshot().store.readFilesJson(listingDoc(ctx))),
    batchListings: async (ctx) => {
      const body = parseJsonBody(ctx.headers, await ctx.body());
      const parsed = BatchRequestSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = issue.path.length ? issue.path.join('.') : 'body';
        const rule =
          issue.code === 'too_big' && issue.path.length === 1
            ? `must hold at most ${LIMITS.batchIds} ids`
            : issue.code === 'unrecognized_keys'
              ? 'may only have the field ids'
              : issue.message;
        throw new CatalogError('invalid_body', `'${where}' ${rule}.`, {
          resolution: `Send {"ids": [...]} with 1 to ${LIMITS.batchIds} listing ids of 1 to ${LIMITS.id.max} characters.`,
        });
      }
      const current = snapshot();
      const docs: number[] = [];
      const seen = new Set<number>();
      const notFound: string[] = [];
      for (const id of parsed.data.ids) {
        const doc = current.store.findDoc(id);
        if (doc === undefined) notFound.push(id);
        else if (!seen.has(doc)) {
          seen.add(doc);
          docs.push(doc);
        }
      }
      return json(200, listingsBody(current, docs, { ...leasedListing, head: OPEN_ITEMS, tail: Buffer.from(`],"notFound":${JSON.stringify(notFound)}}`) }));
    },
    getCatalogStats: () => json(200, snapshot().store.stats),
    getMeta: () => json(200, { brand: BRAND, tagline: TAGLINE, disclaimer: DISCLAIMER, lastUpdated: snapshot().store.manifest.lastUpdated }),
    getStages: () => json(200, STAGES),
    getCategories: () => json(200, snapshot().store.categories),
    getVersioningPolicy: () => json(200, VERSIONING_POLICY),
    getSandbox: () =>
      json(200, {
        name: `${BRAND} sandbox`,
        description: 'A read-only test surface over the live catalog: the same data and handlers, no writes and no tokens.',
        readOnly: true,
        writes: false,
        tokens: false,
        listings: `${services.config.baseUrl}/sandbox/listings`,
        api: `${services.config.baseUrl}/api/v1`,
        types: LISTING_TYPES,
      }),
  };
}

/**
 * An unknown category is a bad parameter like an unknown type, not an empty answer: it says which category was
 * probably meant and where the list is.
 */
function checkCategory(category: string, categories: ReadonlyArray<{ name: string }>): void {
  if (categories.some((c) => c.name === category)) return;
  const closest = closestCategory(
    category,
    categories.map((c) => c.name),
  );
  throw invalidParameter(
    'category',
    `is not a category of the catalog: '${category}'${closest ? ` (did you mean '${closest}'?)` : ''}; GET /api/upstream/categories lists every category`,
  );
}
