// What the ARD Agent Registry API (spec/ard.md §7, handlers in server/routes/ard-routes.ts) filters, facets and
// orders by: the per-snapshot facts of every listing, §7.1's filter object and Appendix A's filter expression.
import { ARD_ENTRY_TYPES, ARD_FILTER_FIELDS, LISTING_PUBLISHER, listingTypeOfMedia } from '../../src/domain/agents/ard.ts';
import { invalidParameter } from '../../src/domain/contract/errors.ts';
import { LISTING_TYPES, type ListingType } from '../../src/domain/listing/listing-types.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { snapshotResource, type Snapshot } from '../catalog/snapshot.ts';

/** Per snapshot, what filters and facets read of every listing; built on first need (one pass over the listings). */
export interface Facts {
  names: string[];
  categories: string[][];
  tags: string[][];
  updatedMs: Float64Array;
}
export const FACTS = snapshotResource('ard-facts', (snapshot): Facts => {
  const n = snapshot.store.count;
  const found: Facts = { names: new Array(n), categories: new Array(n), tags: new Array(n), updatedMs: new Float64Array(n) };
  const chunk = 4096;
  for (let start = 0; start < n; start += chunk) {
    const docs = Uint32Array.from({ length: Math.min(chunk, n - start) }, (_, i) => start + i);
    snapshot.store.readJson(docs).forEach((text, i) => {
      const listing = JSON.parse(text) as Pick<Listing, 'name' | 'categories' | 'tags' | 'updatedAt'>;
      found.names[start + i] = listing.name.toLowerCase();
      found.categories[start + i] = listing.categories;
      found.tags[start + i] = listing.tags;
      found.updatedMs[start + i] = Date.parse(listing.updatedAt);
    });
  }
  return found;
});

export type Filter = Partial<Record<(typeof ARD_FILTER_FIELDS)[number], string[]>>;

/** §7.1: keys are field paths, values arrays (a bare scalar is one value); OR within a key, AND across keys. */
export function parseFilter(raw: Record<string, string | string[]> | undefined): Filter {
  const filter: Filter = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (!(ARD_FILTER_FIELDS as readonly string[]).includes(key))
      throw invalidParameter(`query.filter.${key}`, `is not a field this registry filters on; use ${ARD_FILTER_FIELDS.join(', ')}`);
    filter[key as keyof Filter] = (Array.isArray(value) ? value : [value]).map((v) => v.trim());
  }
  return filter;
}

export function filterTypes(filter: Filter): ListingType[] | undefined {
  if (!filter.type) return undefined;
  const types = new Set<ListingType>();
  for (const media of filter.type) {
    const type = listingTypeOfMedia(media);
    if (type) types.add(type);
  }
  return [...types];
}

export function matches(snapshot: Snapshot, doc: number, filter: Filter, types: ListingType[] | undefined): boolean {
  if (types && !types.includes(LISTING_TYPES[snapshot.store.columns.type[doc]!]!)) return false;
  if (filter.publisher && !filter.publisher.some((p) => p.toLowerCase() === LISTING_PUBLISHER)) return false;
  if (filter.capabilities || filter.tags) {
    const f = snapshot.get(FACTS);
    if (filter.capabilities && !filter.capabilities.some((c) => f.categories[doc]!.includes(c))) return false;
    if (filter.tags && !filter.tags.some((t) => f.tags[doc]!.includes(t))) return false;
  }
  return true;
}

export const ORDERS: Record<string, 'installs' | 'stars' | 'trending' | 'displayName'> = {
  '': 'installs',
  installs: 'installs',
  'installs desc': 'installs',
  'stars desc': 'stars',
  'trending desc': 'trending',
  displayname: 'displayName',
  'displayname asc': 'displayName',
};

export interface ListFilter {
  type?: ListingType[];
  publisherId?: string[];
  displayName?: string;
  updatedAfter?: number;
}

/**
 * Appendix A's filter expression: `field = 'value'` (or `field > '...'` for the time fields) joined by AND, with
 * comma-separated values OR'ed within a field.
 */
export function parseListFilter(expression: string): ListFilter {
  const out: ListFilter = {};
  if (!expression.trim()) return out;
  for (const clause of expression.split(/\s+AND\s+/i)) {
    const match = /^\s*([A-Za-z]+)\s*(=|>|>=)\s*(?:'([^']*)'|"([^"]*)"|([^\s'"]+))\s*$/.exec(clause);
    if (!match) throw invalidParameter('filter', `has a clause '${clause.trim()}' that is not field = 'value'`);
    const [, field, op, ...quoted] = match;
    const value = (quoted.find((v) => v !== undefined) ?? '').trim();
    const values = value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    switch (field) {
      case 'type': {
        if (op !== '=') throw invalidParameter('filter', 'compares type with =');
        const types = values.map((v) => listingTypeOfMedia(v));
        if (types.some((t) => t === undefined)) throw invalidParameter('filter', `type must be among ${Object.values(ARD_ENTRY_TYPES).join(', ')}`);
        out.type = types as ListingType[];
        break;
      }
      case 'publisherId':
        if (op !== '=') throw invalidParameter('filter', 'compares publisherId with =');
        out.publisherId = values.map((v) => v.toLowerCase());
        break;
      case 'displayName':
        if (op !== '=') throw invalidParameter('filter', 'compares displayName with =');
        out.displayName = value.toLowerCase();
        break;
      case 'updatedAfter': {
        const time = Date.parse(value);
        if (Number.isNaN(time)) throw invalidParameter('filter', 'updatedAfter must be an ISO 8601 timestamp');
        out.updatedAfter = time;
        break;
      }
      default:
        throw invalidParameter(
          'filter',
          `field '${field}' is not supported; use type, publisherId, displayName or updatedAfter (the catalog keeps no creation time)`,
        );
    }
  }
  return out;
}
