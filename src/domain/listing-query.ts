// The listing search parameters of SERVICE.md 4.1: one table that validation, the OpenAPI document and the
// docs pages all read, and the parser that turns a query string into a ListingQuery or a named 400.
import { invalidParameter } from './errors.ts';
import { decodePageToken } from './page-token.ts';
import { LIMITS } from './limits.ts';
import { isListingType, LISTING_TYPES, type ListingType } from './listing-types.ts';
import { DEFAULT_SORT, SORTS, type SortKey } from './ranking.ts';
import { CATEGORY_SLUG_PATTERN } from './categories.ts';
import { AUDIT_LEVELS, type AuditLevel } from './schemas.ts';

export interface ParamSpec {
  readonly name: string;
  readonly kind: 'string' | 'integer';
  readonly description: string;
  readonly maxLength?: number;
  readonly min?: number;
  readonly max?: number;
  readonly enum?: readonly string[];
  readonly default?: string | number;
  /** Only on the versioned /api/v1/listings operation. */
  readonly v1Only?: boolean;
}

export const LISTING_QUERY_PARAMS: readonly ParamSpec[] = [
  { name: 'q', kind: 'string', maxLength: LIMITS.q, description: 'Keyword match on name, description, repo or author. When no listing holds every word, a word in no listing is replaced by the closest word of the catalog (response header Search-Corrected).' },
  {
    name: 'semantic',
    kind: 'string',
    maxLength: LIMITS.semantic,
    description: 'Natural-language embedding search; falls back to q when embeddings are unavailable.',
  },
  { name: 'type', kind: 'string', enum: LISTING_TYPES, description: 'One listing type.' },
  { name: 'types', kind: 'string', maxLength: LIMITS.types, description: 'Comma-separated listing types.' },
  {
    name: 'category',
    kind: 'string',
    maxLength: LIMITS.category,
    description: 'Category slug; matches any of a listing\'s categories.',
  },
  { name: 'owner', kind: 'string', maxLength: LIMITS.owner, description: 'Repository owner or author (case-insensitive).' },
  {
    name: 'updatedSince',
    kind: 'string',
    maxLength: 40,
    description: 'RFC 3339 date-time (e.g. 2026-08-01T00:00:00Z): only listings whose updatedAt is at or after it.',
  },
  {
    name: 'risk',
    kind: 'string',
    enum: AUDIT_LEVELS,
    description: 'Only listings whose stored files were audited, at this audit level (none, info, warn, high; see /docs/audit). Listings without stored files are never audited and never match.',
  },
  {
    name: 'distinct',
    kind: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: 'true: one listing per copy group (its best-ranked member; see /docs/copies), with total, offsets and cursors counted over the folded results. false (default): every listing.',
  },
  {
    name: 'sort',
    kind: 'string',
    enum: SORTS,
    default: DEFAULT_SORT,
    description: 'installs (default), trending, stars or searchTrend, on real figures only: installs ranks the listings with real installs, then those with real stars by stars, then the rest by id; stars the other way round; trending ranks measured or interpolated histories, modelled ones follow by id. Ties break by id. A listing whose repository moved to one with a live listing of the same name comes right below that successor. With q or semantic and no sort, relevance. See /docs/ranking.',
  },
  {
    name: 'limit',
    kind: 'integer',
    min: LIMITS.pageSize.min,
    max: LIMITS.pageSize.max,
    default: LIMITS.pageSize.default,
    description: 'Page size.',
  },
  { name: 'offset', kind: 'integer', min: 0, default: 0, description: 'Number of results to skip.' },
  {
    name: 'pageSize',
    kind: 'integer',
    min: LIMITS.pageSize.min,
    max: LIMITS.pageSize.max,
    v1Only: true,
    description: 'Alias of limit.',
  },
  {
    name: 'pageToken',
    kind: 'string',
    v1Only: true,
    description: 'Alias of offset: a token from a previous page (or a plain offset); empty means the first page.',
  },
  { name: 'cursor', kind: 'string', v1Only: true, description: 'Preferred alias of offset/pageToken: the cursor of the previous page.' },
];

/** RFC 3339 date-time: a full date, T, a time with optional fraction, and Z or an offset. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const SPEC_BY_NAME = new Map(LISTING_QUERY_PARAMS.map((spec) => [spec.name, spec]));

export interface ListingQuery {
  q: string | undefined;
  semantic: string | undefined;
  types: ListingType[] | undefined;
  category: string | undefined;
  owner: string | undefined;
  /** updatedSince as whole seconds since the epoch (listings updated at or after it). */
  updatedSince: number | undefined;
  /** Only audited listings of this level. */
  risk: AuditLevel | undefined;
  /** One listing per copy group (server/search/folded-search.ts). */
  distinct: boolean;
  /** undefined: the default order (relevance with q/semantic, else installs). */
  sort: SortKey | undefined;
  limit: number;
  offset: number;
}

/** A ListingQuery with every filter unset, the first page and the default page size, overridden by `partial`. */
export function listingQuery(partial: Partial<ListingQuery> = {}): ListingQuery {
  return {
    q: undefined,
    semantic: undefined,
    types: undefined,
    category: undefined,
    owner: undefined,
    updatedSince: undefined,
    risk: undefined,
    distinct: false,
    sort: undefined,
    offset: 0,
    limit: LIMITS.pageSize.default,
    ...partial,
  };
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw.trim())) throw invalidParameter(name, 'must be an integer');
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    // An unbounded parameter still has a largest value: past it, "must be at least 0" would misstate the fault.
    if (max !== Number.MAX_SAFE_INTEGER) throw invalidParameter(name, `must be between ${min} and ${max}`);
    throw invalidParameter(name, value < min ? `must be at least ${min}` : `must be at most ${Number.MAX_SAFE_INTEGER}`);
  }
  return value;
}

/**
 * A parameter checked against its spec, the one place a ParamSpec is enforced: its length, its enum (after
 * trimming; blank means absent) and, for an integer, its range. Undefined when the value is blank.
 */
export function checkedParam(spec: ParamSpec, raw: string): string | number | undefined {
  if (spec.maxLength !== undefined && raw.length > spec.maxLength) throw invalidParameter(spec.name, `must be at most ${spec.maxLength} characters`);
  if (spec.kind === 'integer') return raw === '' ? undefined : parseInteger(spec.name, raw, spec.min ?? 0, spec.max ?? Number.MAX_SAFE_INTEGER);
  const value = raw.trim();
  if (!value) return undefined;
  if (spec.enum && !spec.enum.includes(value)) throw invalidParameter(spec.name, `must be one of ${spec.enum.join(', ')}`);
  return value;
}


function decodeCursor(name: string, raw: string, fingerprint: string): number {
  if (/^\d+$/.test(raw)) return parseInteger(name, raw, 0, Number.MAX_SAFE_INTEGER);
  const token = decodePageToken(raw);
  if (!token) throw invalidParameter(name, 'is not a token this service issued');
  if (token.fingerprint !== fingerprint)
    throw invalidParameter(name, 'belongs to a different query; keep the filters, q and sort of the page that issued it');
  if (!Number.isSafeInteger(token.offset)) throw invalidParameter(name, `must be at most ${Number.MAX_SAFE_INTEGER}`);
  return token.offset;
}

/** Stable fingerprint of everything but paging, so a cursor can't be replayed against another query. */
export function queryFingerprint(query: Omit<ListingQuery, 'limit' | 'offset'>): string {
  const parts: unknown[] = [query.q ?? '', query.semantic ?? '', query.types ?? [], query.category ?? '', query.owner?.toLowerCase() ?? '', query.sort ?? '', query.updatedSince ?? ''];
  // Appended only when set, so the cursors issued before these parameters existed stay valid.
  if (query.risk !== undefined) parts.push(`risk=${query.risk}`);
  if (query.distinct) parts.push('distinct');
  const key = JSON.stringify(parts);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return h1.toString(36) + h2.toString(36);
}

/**
 * Parses the listing search parameters. `versioned` enables the v1-only aliases (pageSize, pageToken, cursor);
 * on the raw-array operation they are ignored like any other unknown parameter.
 */
export function parseListingQuery(params: URLSearchParams, versioned: boolean): ListingQuery {
  const values = new Map<string, string | number | undefined>();
  for (const [name, raw] of params) {
    const spec = SPEC_BY_NAME.get(name);
    if (!spec || (spec.v1Only && !versioned)) continue;
    if (values.has(name)) throw invalidParameter(name, 'must be given at most once');
    values.set(name, checkedParam(spec, raw));
  }
  const text = (name: string) => values.get(name) as string | undefined;
  const integer = (name: string) => values.get(name) as number | undefined;

  const type = text('type') as ListingType | undefined;
  let types: ListingType[] | undefined = type === undefined ? undefined : [type];
  const typeList = text('types');
  if (typeList !== undefined) {
    const listed = [...new Set(typeList.split(',').map((t) => t.trim()).filter(Boolean))];
    for (const t of listed) if (!isListingType(t)) throw invalidParameter('types', `has '${t}'; each must be one of ${LISTING_TYPES.join(', ')}`);
    const asTypes = listed as ListingType[];
    // type and types together narrow to the types both allow.
    types = types ? types.filter((t) => asTypes.includes(t)) : asTypes;
  }

  const category = text('category');
  if (category !== undefined && !CATEGORY_SLUG_PATTERN.test(category))
    throw invalidParameter('category', 'must be a category slug such as databases (see /api/upstream/categories)');

  const sinceRaw = text('updatedSince');
  let updatedSince: number | undefined;
  if (sinceRaw !== undefined) {
    const millis = RFC3339.test(sinceRaw) ? Date.parse(sinceRaw) : Number.NaN;
    if (!Number.isFinite(millis)) throw invalidParameter('updatedSince', 'must be an RFC 3339 date-time such as 2026-08-01T00:00:00Z');
    // Whole seconds, rounded up: a listing updated within the given second but before it would otherwise pass.
    updatedSince = Math.max(0, Math.ceil(millis / 1000));
  }

  const limit = integer('limit');
  const pageSize = integer('pageSize');
  if (limit !== undefined && pageSize !== undefined && limit !== pageSize)
    throw invalidParameter('pageSize', 'is an alias of limit and must equal it when both are given');

  const base = {
    q: text('q'),
    semantic: text('semantic'),
    types,
    category,
    owner: text('owner'),
    updatedSince,
    risk: text('risk') as AuditLevel | undefined,
    distinct: text('distinct') === 'true',
    sort: text('sort') as SortKey | undefined,
  };
  const fingerprint = queryFingerprint(base);
  const candidates: Array<[string, number]> = [];
  const offset0 = integer('offset');
  if (offset0 !== undefined) candidates.push(['offset', offset0]);
  for (const name of ['pageToken', 'cursor']) {
    const raw = text(name);
    if (raw !== undefined) candidates.push([name, decodeCursor(name, raw, fingerprint)]);
  }
  const offset = candidates[0]?.[1] ?? 0;
  for (const [name, value] of candidates)
    if (value !== offset) throw invalidParameter(name, `points at offset ${value} but ${candidates[0]![0]} says ${offset}; send one of them`);

  return { ...base, limit: limit ?? pageSize ?? LIMITS.pageSize.default, offset };
}
