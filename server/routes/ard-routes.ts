// The ARD Agent Registry API (spec/ard.md §7) under ARD_BASE_PATH: POST /search (ranked entries with a 0-100
// relevance score), POST /explore (facets over the matched set), GET /agents (deterministic list) and
// GET /agents/{identifier}. Text queries run through services.listingSearch with `semantic`, the same hybrid search
// /ask and the MCP tools use; the matched set is its top MATCH_CAP, the one relevance cutoff Search and Explore share.
import {
  ARD_ERROR_CODES,
  ARD_FACET_FIELDS,
  ARD_FILTER_FIELDS,
  ARD_PAGE,
  ArdExploreRequestSchema,
  ArdSearchRequestSchema,
  ardIdentifier,
  LISTING_PUBLISHER,
  parseArdIdentifier,
  relevanceScore,
  toArdEntry,
  ARD_BASE_PATH,
  ARD_ENTRY_TYPES,
  ARD_SPEC,
  registryEntry,
  type ArdEntry,
} from '../../src/domain/agents/ard.ts';
import { CatalogError, invalidParameter } from '../../src/domain/contract/errors.ts';
import { listingQuery } from '../../src/domain/contract/listing-query.ts';
import { decodePageToken, encodePageToken } from '../../src/domain/contract/page-token.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import type { z } from 'zod';
import type { Snapshot } from '../catalog/snapshot.ts';
import { FACTS, filterTypes, matches, ORDERS, parseFilter, parseListFilter, type Filter } from '../ard/ard-query.ts';
import { parseJsonBody } from '../http/body.ts';
import { json, toCatalogError, type Handler, type HandlersFor, type RequestContext } from '../http/handler.ts';
import { listingsJson } from '../catalog/listing-json.ts';
import type { Services } from '../services.ts';
import { skillFilePath } from '../../src/domain/agents/skill-files.ts';

/** How many of the hybrid ranking's best results form the matched set of a text query (Search and Explore alike). */
export const MATCH_CAP = 500;

function decodeToken(raw: string | undefined, fingerprint: string, name = 'pageToken'): number {
  if (!raw) return 0;
  const token = decodePageToken(raw);
  if (!token || !Number.isSafeInteger(token.offset)) throw invalidParameter(name, 'is not a token this registry issued');
  if (token.fingerprint !== fingerprint) throw invalidParameter(name, 'belongs to a different query; send the same query and filter with it');
  return token.offset;
}

function fromZod(error: z.ZodError): CatalogError {
  const issue = error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : 'body';
  return new CatalogError('invalid_body', `'${where}': ${issue.message}.`, {
    resolution: `See the ARD request schemas in /openapi.json (operations under ${ARD_BASE_PATH}).`,
  });
}

/** ARD errors carry Appendix B's `errorCode` next to our own {code, message, resolution}. */
function ardHandler(handler: Handler): Handler {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (error) {
      const catalogError = toCatalogError(error);
      if (catalogError.status >= 500) throw error;
      const errorCode = ARD_ERROR_CODES[catalogError.status] ?? (catalogError.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT');
      return json(catalogError.status, { errorCode, ...catalogError.toBody() }, catalogError.headers);
    }
  };
}

export function ardHandlers(services: Services): HandlersFor<'ardRegistry' | 'ardSearch' | 'ardExplore' | 'ardListAgents' | 'ardGetAgent'> {
  const base = services.config.baseUrl;
  const source = base + ARD_BASE_PATH;
  const entries = (snapshot: Snapshot, docs: readonly number[]): ArdEntry[] =>
    listingsJson(services.config.baseUrl, snapshot, docs).map((text) =>
      toArdEntry(JSON.parse(text) as Listing, { baseUrl: base, skillFile: (slug) => skillFilePath(slug) }),
    );

  /** The matched set, best first: the hybrid search's top MATCH_CAP for text, else every listing by installs. */
  const matchedSet = async (snapshot: Snapshot, text: string | undefined, filter: Filter): Promise<number[]> => {
    const types = filterTypes(filter);
    if (types && types.length === 0) return [];
    const category = filter.capabilities?.length === 1 ? filter.capabilities[0] : undefined;
    const docs = text
      ? (await services.listingSearch(snapshot, listingQuery({ semantic: text, types, category, limit: MATCH_CAP }))).result.docs
      : snapshot.engine.search({ types, category, offset: 0, limit: snapshot.store.count }).docs;
    return docs.filter((doc) => matches(snapshot, doc, filter, types));
  };

  const body = async (ctx: RequestContext): Promise<unknown> => parseJsonBody(ctx.headers, await ctx.body());

  const search: Handler = async (ctx) => {
    const parsed = ArdSearchRequestSchema.safeParse(await body(ctx));
    if (!parsed.success) throw fromZod(parsed.error);
    const request = parsed.data;
    const filter = parseFilter(request.query.filter);
    const text = request.query.text.trim();
    if (!text) throw invalidParameter('query.text', 'must not be blank: Search needs the need in words (§7.2)');
    const fingerprint = JSON.stringify([text, filter]);
    const offset = decodeToken(request.pageToken, fingerprint);
    const snapshot = services.catalog.current;
    const matched = await matchedSet(snapshot, text, filter);
    const page = matched.slice(offset, offset + request.pageSize);
    services.signals?.appeared(snapshot, page, offset);
    const results = entries(snapshot, page).map((entry, i) => ({ ...entry, score: relevanceScore(offset + i), source }));
    const answer: Record<string, unknown> = { results };
    // No upstream registries are configured: auto searches this index only, and referrals has none to offer.
    if (request.federation === 'referrals') answer.referrals = [];
    if (matched.length > offset + page.length) answer.pageToken = encodePageToken(offset + page.length, fingerprint);
    return json(200, answer);
  };

  const explore: Handler = async (ctx) => {
    const parsed = ArdExploreRequestSchema.safeParse(await body(ctx));
    if (!parsed.success) throw fromZod(parsed.error);
    const { query, resultType } = parsed.data;
    for (const facet of resultType.facets)
      if (!(ARD_FACET_FIELDS as readonly string[]).includes(facet.field))
        throw invalidParameter('resultType.facets.field', `'${facet.field}' is not a facet of this registry; use ${ARD_FACET_FIELDS.join(', ')}`);
    const snapshot = services.catalog.current;
    const text = query?.text?.trim() || undefined;
    const matched = await matchedSet(snapshot, text, parseFilter(query?.filter));
    const out: Record<string, { buckets: Array<{ value: string; count: number }>; otherCount?: number }> = {};
    for (const facet of resultType.facets) {
      const counts = new Map<string, number>();
      const add = (value: string) => counts.set(value, (counts.get(value) ?? 0) + 1);
      const f = facet.field === 'capabilities' || facet.field === 'tags' ? snapshot.get(FACTS) : undefined;
      for (const doc of matched) {
        if (facet.field === 'type') add(ARD_ENTRY_TYPES[LISTING_TYPES[snapshot.store.columns.type[doc]!]!]);
        else if (facet.field === 'publisher') add(LISTING_PUBLISHER);
        else for (const value of (facet.field === 'capabilities' ? f!.categories : f!.tags)[doc]!) add(value);
      }
      const ranked = [...counts].filter(([, count]) => count >= facet.minCount).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const kept = ranked.slice(0, facet.limit);
      const result: { buckets: Array<{ value: string; count: number }>; otherCount?: number } = { buckets: kept.map(([value, count]) => ({ value, count })) };
      // §7.3: otherCount is the number of matching entries in the buckets beyond the limit.
      if (ranked.length > kept.length) result.otherCount = ranked.slice(kept.length).reduce((sum, [, count]) => sum + count, 0);
      out[facet.field] = result;
    }
    return json(200, { resultType: 'facets', facets: out });
  };

  const listAgents: Handler = (ctx) => {
    const one = (name: string) => {
      const values = ctx.query.getAll(name);
      if (values.length > 1) throw invalidParameter(name, 'must be given at most once');
      return values[0];
    };
    const pageSizeRaw = one('pageSize');
    let pageSize: number = ARD_PAGE.listDefault;
    if (pageSizeRaw !== undefined && pageSizeRaw !== '') {
      if (!/^\d+$/.test(pageSizeRaw) || Number(pageSizeRaw) < 1 || Number(pageSizeRaw) > ARD_PAGE.max)
        throw invalidParameter('pageSize', `must be an integer from 1 to ${ARD_PAGE.max}`);
      pageSize = Number(pageSizeRaw);
    }
    const expression = parseListFilter(one('filter') ?? '');
    const orderBy = (one('orderBy') ?? '').trim().replace(/\s+/g, ' ');
    const order = ORDERS[orderBy.toLowerCase()];
    if (!order) throw invalidParameter('orderBy', `must be one of ${Object.keys(ORDERS).filter(Boolean).join(', ')} (default installs desc)`);
    const fingerprint = JSON.stringify([expression, order]);
    const offset = decodeToken(one('pageToken'), fingerprint);
    const snapshot = services.catalog.current;
    const types = expression.type;
    let docs = snapshot.engine.search({ types, sort: order === 'displayName' ? 'installs' : order, offset: 0, limit: snapshot.store.count }).docs;
    if (expression.publisherId && !expression.publisherId.includes(LISTING_PUBLISHER)) docs = [];
    if (expression.displayName !== undefined || expression.updatedAfter !== undefined || order === 'displayName') {
      const f = snapshot.get(FACTS);
      const name = expression.displayName;
      const after = expression.updatedAfter;
      docs = docs.filter((doc) => (name === undefined || f.names[doc]!.includes(name)) && (after === undefined || f.updatedMs[doc]! > after));
      if (order === 'displayName') docs = [...docs].sort((a, b) => (f.names[a]! < f.names[b]! ? -1 : f.names[a]! > f.names[b]! ? 1 : a - b));
    }
    const page = docs.slice(offset, offset + pageSize);
    const answer: Record<string, unknown> = { items: entries(snapshot, page), total: docs.length };
    if (docs.length > offset + page.length) answer.pageToken = encodePageToken(offset + page.length, fingerprint);
    return json(200, answer);
  };

  const getAgent: Handler = (ctx) => {
    const identifier = ctx.params.identifier ?? '';
    const parsed = parseArdIdentifier(identifier);
    const snapshot = services.catalog.current;
    const doc = parsed ? snapshot.store.findDoc(parsed.name) : undefined;
    const entry = doc === undefined ? undefined : entries(snapshot, [doc])[0];
    if (!entry || entry.identifier.toLowerCase() !== identifier.toLowerCase())
      throw new CatalogError('not_found', `No entry has the identifier '${identifier}'.`, {
        resolution: `Identifiers look like ${ardIdentifier({ repo: 'owner/repo', slug: 'slug' })}; find them with POST ${ARD_BASE_PATH}/search.`,
      });
    services.signals?.opened(snapshot, doc!);
    return json(200, entry);
  };

  return {
    // The registry's base URL (the url of its ai-registry entry) answers with what is under it.
    ardRegistry: () =>
      json(200, {
        ...registryEntry(base),
        specification: ARD_SPEC,
        endpoints: { search: `${source}/search`, explore: `${source}/explore`, agents: `${source}/agents`, agent: `${source}/agents/{identifier}` },
        federation: { modes: ['auto', 'referrals', 'none'], upstreams: [] },
        filterFields: ARD_FILTER_FIELDS,
        facetFields: ARD_FACET_FIELDS,
        pageSize: { max: ARD_PAGE.max },
      }),
    ardSearch: ardHandler(search),
    ardExplore: ardHandler(explore),
    ardListAgents: ardHandler(listAgents),
    ardGetAgent: ardHandler(getAgent),
  };
}
