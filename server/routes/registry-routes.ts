// The official-MCP-registry read API (GET /v0.1/servers and /v0.1/servers/{name}/versions[/{version}]) over
// the catalog's MCP listings, so registry clients (VS Code, subregistries, the registry's own tooling) can
// read the catalog as a registry. Search runs through the same listing search as the API's `q`.
import { CatalogError, invalidParameter } from '../../src/domain/contract/errors.ts';
import { listingQuery } from '../../src/domain/contract/listing-query.ts';
import { decodePageToken, encodePageToken } from '../../src/domain/contract/page-token.ts';
import { parseServerName, REGISTRY_PAGE, toServerResponse, type ServerResponse } from '../../src/domain/agents/registry-mapping.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { isMcp, MCP_TABLE } from '../registry/mcp-table.ts';
import { json, type HandlersFor, type Reply, type RequestContext } from '../http/handler.ts';
import { listingsJson } from '../catalog/listing-json.ts';
import type { Services } from '../services.ts';

export const REGISTRY_PATHS = {
  servers: '/v0.1/servers',
  versions: '/v0.1/servers/{serverName}/versions',
  version: '/v0.1/servers/{serverName}/versions/{version}',
} as const;

const MAX_SEARCH = 128;

function decodeCursor(raw: string, fingerprint: string): number {
  const token = decodePageToken(raw);
  if (!token || !Number.isSafeInteger(token.offset))
    throw invalidParameter('cursor', 'is not a cursor this registry issued (use metadata.nextCursor of the previous page)');
  if (token.fingerprint !== fingerprint)
    throw invalidParameter('cursor', 'belongs to a different query; keep search, updated_since and version of the page that issued it');
  return token.offset;
}

function single(ctx: RequestContext, name: string): string | undefined {
  const values = ctx.query.getAll(name);
  if (values.length > 1) throw invalidParameter(name, 'must be given at most once');
  return values[0];
}

function parseBoolean(ctx: RequestContext, name: string): boolean {
  const raw = single(ctx, name);
  if (raw === undefined || raw === '') return false;
  if (raw !== 'true' && raw !== 'false') throw invalidParameter(name, 'must be true or false');
  return raw === 'true';
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function registryHandlers(services: Services): HandlersFor<'registryListServers' | 'registryServerVersions' | 'registryServerVersion'> {
  const serverResponses = (snapshot: Snapshot, docs: readonly number[]): ServerResponse[] =>
    listingsJson(services.config.baseUrl, snapshot, docs).map((text) => toServerResponse(JSON.parse(text) as Listing));

  const listServers = async (ctx: RequestContext): Promise<Reply> => {
    const search = single(ctx, 'search')?.trim() || undefined;
    if (search !== undefined && search.length > MAX_SEARCH) throw invalidParameter('search', `must be at most ${MAX_SEARCH} characters`);
    const limitRaw = single(ctx, 'limit');
    let limit: number = REGISTRY_PAGE.default;
    if (limitRaw !== undefined && limitRaw !== '') {
      if (!/^\d+$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > REGISTRY_PAGE.max)
        throw invalidParameter('limit', `must be an integer from 1 to ${REGISTRY_PAGE.max}`);
      limit = Number(limitRaw);
    }
    const sinceRaw = single(ctx, 'updated_since');
    let since: number | undefined;
    if (sinceRaw !== undefined && sinceRaw !== '') {
      since = Date.parse(sinceRaw);
      if (!RFC3339.test(sinceRaw) || Number.isNaN(since)) throw invalidParameter('updated_since', 'must be an RFC 3339 date-time such as 2025-08-07T13:15:04Z');
    }
    const version = single(ctx, 'version')?.trim() || undefined;
    // Nothing is ever deleted from this read-only registry, so include_deleted changes nothing; it is still checked.
    parseBoolean(ctx, 'include_deleted');
    const fingerprint = JSON.stringify([search ?? '', since ?? '', version ?? '']);
    const cursorRaw = single(ctx, 'cursor');
    const offset = cursorRaw ? decodeCursor(cursorRaw, fingerprint) : 0;

    const snapshot = services.catalog.current;
    let page: number[];
    let hasMore: boolean;
    const filtered = since !== undefined || (version !== undefined && version !== 'latest');
    if (!filtered) {
      const found = search
        ? (await services.listingSearch(snapshot, listingQuery({ q: search, types: ['mcp'], offset, limit }))).result
        : snapshot.engine.search({ types: ['mcp'], sort: 'stars', offset, limit });
      page = found.docs;
      hasMore = found.hasMore;
    } else {
      const all = search
        ? (await services.listingSearch(snapshot, listingQuery({ q: search, types: ['mcp'], offset: 0, limit: snapshot.store.count }))).result.docs
        : snapshot.engine.search({ types: ['mcp'], sort: 'stars', offset: 0, limit: snapshot.store.count }).docs;
      const table = snapshot.get(MCP_TABLE);
      const kept = all.filter(
        (doc) =>
          (since === undefined || (table.updatedMs.get(doc) ?? 0) >= since) &&
          (version === undefined || version === 'latest' || table.version.get(doc) === version),
      );
      page = kept.slice(offset, offset + limit);
      hasMore = kept.length > offset + limit;
    }
    const metadata: { count: number; nextCursor?: string } = { count: page.length };
    if (hasMore) metadata.nextCursor = encodePageToken(offset + limit, fingerprint);
    return json(200, { servers: serverResponses(snapshot, page), metadata });
  };

  const findServer = (ctx: RequestContext): ServerResponse => {
    const name = ctx.params.serverName ?? '';
    const parsed = parseServerName(name);
    const snapshot = services.catalog.current;
    const doc = parsed ? snapshot.store.findDoc(parsed.slug) : undefined;
    const response = doc !== undefined && isMcp(snapshot, doc) ? serverResponses(snapshot, [doc])[0] : undefined;
    // The slug alone finds the listing; the owner must match too, or another owner's name would resolve.
    if (!response || response.server.name.toLowerCase() !== name.toLowerCase())
      throw new CatalogError('not_found', `No MCP server is named '${name}'.`, {
        resolution: 'Names look like io.github.{owner}/{slug} with the slash URL-encoded (%2F); list them with GET /v0.1/servers.',
      });
    return response;
  };

  return {
    registryListServers: listServers,
    registryServerVersions: (ctx) => {
      parseBoolean(ctx, 'include_deleted');
      return json(200, { servers: [findServer(ctx)], metadata: { count: 1 } });
    },
    registryServerVersion: (ctx) => {
      parseBoolean(ctx, 'include_deleted');
      const response = findServer(ctx);
      const version = ctx.params.version ?? '';
      if (version !== 'latest' && version !== response.server.version)
        throw new CatalogError('not_found', `${response.server.name} has no version '${version}'.`, {
          resolution: `This registry keeps the current version only: ${response.server.version} (also reachable as latest).`,
        });
      return json(200, response);
    },
  };
}
