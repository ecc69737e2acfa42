// Catalog reads shared by the agent surfaces (MCP tools, A2A, /ask): a natural-language search through the same
// listing search the API uses (its `semantic` field, so real embeddings slot in behind it), and the top lists.
// Everything answers from the live in-memory snapshot; nothing calls the shim over HTTP. Both fold copies: an agent
// choosing a skill is shown one listing per copy group (server/search-runtime/folded-search.ts).
import { listingQuery, type ListingQuery } from '../../src/domain/contract/listing-query.ts';
import { RANKING_METRIC, type ListingType } from '../../src/domain/listing/listing-types.ts';
import type { SortKey } from '../../src/domain/listing/ranking.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { SEARCH_MODE_HEADER } from '../search-runtime/listing-search.ts';
import { listingsJson } from '../catalog/listing-json.ts';
import type { Services } from '../services.ts';
import { foldDocs, foldedPage } from '../search-runtime/folded-search.ts';

export interface AgentSearchRequest {
  query: string;
  types?: ListingType[] | undefined;
  category?: string | undefined;
  limit: number;
}

export interface AgentListings {
  /** The listings, best first; each surface writes them in its own form (listing-json.ts). */
  docs: number[];
  /** The snapshot they were found in. */
  snapshot: Snapshot;
  hasMore: boolean;
  /** Response headers of the listing search (Search-Mode). */
  headers: Record<string, string>;
}

/** How the search ran: "semantic", or the fallback the listing search reports in Search-Mode. */
export function searchMode(listings: AgentListings): string {
  return listings.headers[SEARCH_MODE_HEADER] ?? 'semantic';
}

function query(partial: Partial<ListingQuery> & Pick<ListingQuery, 'limit'>): ListingQuery {
  return listingQuery(partial);
}

/** The listings' JSON texts (with url), for the surfaces that write them as text. */
export function listingTexts(services: Services, listings: AgentListings): string[] {
  return listingsJson(services.config.baseUrl, listings.snapshot, listings.docs);
}

/** Natural-language search: "something to let my agent query Postgres" finds Postgres MCP servers and skills. */
export async function searchForAgent(services: Services, request: AgentSearchRequest, snapshot: Snapshot = services.catalog.current): Promise<AgentListings> {
  const { result, headers } = await foldedPage(
    services.listingSearch,
    snapshot,
    query({ semantic: request.query, types: request.types, category: request.category, limit: request.limit }),
    false,
  );
  services.signals?.appeared(snapshot, result.docs, 0);
  return { docs: result.docs, snapshot, hasMore: result.hasMore, headers };
}

/** The default order of a top list: the type's ranking metric, installs across types. */
export function defaultSort(type: ListingType | undefined): SortKey {
  return type ? RANKING_METRIC[type] : 'installs';
}

export function topForAgent(
  services: Services,
  request: { type?: ListingType | undefined; sort?: SortKey | undefined; limit: number },
  snapshot: Snapshot = services.catalog.current,
): AgentListings & { sort: SortKey } {
  const sort = request.sort ?? defaultSort(request.type);
  const group = snapshot.store.columns.copyGroup;
  // A top list walks the sort order: a window a few times the list's length holds enough groups, else a wider one.
  for (let window = request.limit * 3 + 1; ; window *= 4) {
    const result = snapshot.engine.search({ types: request.type ? [request.type] : undefined, sort, offset: 0, limit: window });
    const docs = foldDocs(result.docs, group);
    if (docs.length > request.limit || !result.hasMore)
      return { docs: docs.slice(0, request.limit), snapshot, hasMore: docs.length > request.limit || result.hasMore, headers: {}, sort };
  }
}
