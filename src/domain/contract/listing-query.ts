// The listing search parameters of SERVICE.md 4.1: one table that validation, the OpenAPI document and the
// docs pages all read, and the parser that turns a query string into a ListingQuery or a named 400.
import { z } from 'zod';
import { invalidParameter } from './errors.ts';
import { decodePageToken } from './page-token.ts';
import { LIMITS } from './limits.ts';
import { isListingType, LISTING_TYPES, type ListingType } from '../listing/listing-types.ts';
import { DEFAULT_SORT, SORTS, type SortKey } from '../listing/ranking.ts';
import { CATEGORY_SLUG_PATTERN } from '../listing/categories.ts';
import { AUDIT_LEVELS, type AuditLevel } from '../schemas.ts';

/** A query parameter's value rules, as zod: text with a length limit, one of an enum, or an integer in a range. */
export type ParamValue = z.ZodString | z.ZodEnum | z.ZodNumber;

export interface ParamSpec {
  readonly name: string;
  readonly description: string;
  /** The value's rules (and, with .default(), its default): validation and the OpenAPI parameter read them. */
  readonly schema: ParamValue | z.ZodDefault<ParamValue>;
  /** Only on the versioned /api/v1/listings operation. */
  readonly v1Only?: boolean;
}

/** What a parameter's schema allows, read off its zod checks (for the messages and the OpenAPI schema). */
export interface ParamRules {
  readonly kind: 'string' | 'integer';
  readonly maxLength?: number | undefined;
  readonly min?: number | undefined;
  readonly max?: number | undefined;
  readonly enum?: readonly string[] | undefined;
  readonly default?: string | number | undefined;
}

/** A text parameter: any string within `maxLength` characters, or one of `values`. */
export function textParam(
  name: string,
  description: string,
  rules: { maxLength?: number; values?: readonly [string, ...string[]]; default?: string } = {},
  v1Only?: true,
): ParamSpec {
  const value: ParamValue = rules.values ? z.enum(rules.values) : rules.maxLength !== undefined ? z.string().max(rules.maxLength) : z.string();
  const schema = rules.default === undefined ? value : value.default(rules.default as never);
  return v1Only ? { name, description, schema, v1Only } : { name, description, schema };
}

/** An integer parameter of at least `min` (and at most `max`, when it has one). */
export function integerParam(name: string, description: string, rules: { min: number; max?: number; default?: number }, v1Only?: true): ParamSpec {
  const value = rules.max === undefined ? z.int().min(rules.min) : z.int().min(rules.min).max(rules.max);
  const schema = rules.default === undefined ? value : value.default(rules.default);
  return v1Only ? { name, description, schema, v1Only } : { name, description, schema };
}

const rulesOf = new WeakMap<ParamSpec, ParamRules>();

export function paramRules(spec: ParamSpec): ParamRules {
  let rules = rulesOf.get(spec);
  if (!rules) {
    const value = spec.schema instanceof z.ZodDefault ? (spec.schema.unwrap() as ParamValue) : spec.schema;
    const fallback = spec.schema instanceof z.ZodDefault ? (spec.schema.def.defaultValue as string | number) : undefined;
    if (value instanceof z.ZodNumber) {
      const max = value.maxValue ?? Number.MAX_SAFE_INTEGER;
      rules = { kind: 'integer', min: value.minValue ?? undefined, max: max === Number.MAX_SAFE_INTEGER ? undefined : max, default: fallback };
    } else if (value instanceof z.ZodEnum) {
      rules = { kind: 'string', enum: value.options as string[], default: fallback };
    } else {
      rules = { kind: 'string', maxLength: value.maxLength ?? undefined, default: fallback };
    }
    rulesOf.set(spec, rules);
  }
  return rules;
}

export const LISTING_QUERY_PARAMS: readonly ParamSpec[] = [
  textParam(
    'q',
    'Keyword match on name, description, repo or author. When no listing holds every word, a word in no listing is replaced by the closest word of the catalog (response header Search-Corrected).',
    { maxLength: LIMITS.q },
  ),
  textParam('semantic', 'Natural-language embedding search; falls back to q when embeddings are unavailable.', { maxLength: LIMITS.semantic }),
  textParam('type', 'One listing type.', { values: LISTING_TYPES }),
  textParam('types', 'Comma-separated listing types.', { maxLength: LIMITS.types }),
  textParam('category', "Category slug; matches any of a listing's categories.", { maxLength: LIMITS.category }),
  textParam('owner', 'Repository owner or author (case-insensitive).', { maxLength: LIMITS.owner }),
  textParam('updatedSince', 'RFC 3339 date-time (e.g. 2026-08-01T00:00:00Z): only listings whose updatedAt is at or after it.', { maxLength: 40 }),
  textParam(
    'risk',
    'Only listings whose stored files were audited, at this audit level (none, info, warn, high; see /docs/audit). Listings without stored files are never audited and never match.',
    { values: AUDIT_LEVELS },
  ),
  textParam(
    'distinct',
    'true: one listing per copy group (its best-ranked member; see /docs/copies), with total, offsets and cursors counted over the folded results. false (default): every listing.',
    { values: ['true', 'false'], default: 'false' },
  ),
  textParam(
    'sort',
    'installs (default), trending, stars or searchTrend, on real figures only: installs ranks the listings with real installs, then those with real stars by stars, then the rest by id; stars the other way round; trending ranks measured or interpolated histories, modelled ones follow by id. Ties break by id. A listing whose repository moved to one with a live listing of the same name comes right below that successor. With q or semantic and no sort, relevance. See /docs/ranking.',
    { values: SORTS, default: DEFAULT_SORT },
  ),
  integerParam('limit', 'Page size.', { min: LIMITS.pageSize.min, max: LIMITS.pageSize.max, default: LIMITS.pageSize.default }),
  integerParam('offset', 'Number of results to skip.', { min: 0, default: 0 }),
  integerParam('pageSize', 'Alias of limit.', { min: LIMITS.pageSize.min, max: LIMITS.pageSize.max }, true),
  textParam('pageToken', 'Alias of offset: a token from a previous page (or a plain offset); empty means the first page.', {}, true),
  textParam('cursor', 'Preferred alias of offset/pageToken: the cursor of the previous page.', {}, true),
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
  /** One listing per copy group (server/search-runtime/folded-search.ts). */
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
 * The rules are the schema's, read off it once (paramRules), and checked here without running zod: every listing
 * search passes through this, and a zod parse per parameter was a measurable share of a search's cost
 * (bench/records/2026-11-27-q-unique-regression.md). A test holds the two to the same verdict on every spec.
 */
export function checkedParam(spec: ParamSpec, raw: string): string | number | undefined {
  const rules = paramRules(spec);
  if (rules.maxLength !== undefined && raw.length > rules.maxLength) throw invalidParameter(spec.name, `must be at most ${rules.maxLength} characters`);
  if (rules.kind === 'integer') return raw === '' ? undefined : parseInteger(spec.name, raw, rules.min ?? 0, rules.max ?? Number.MAX_SAFE_INTEGER);
  const value = raw.trim();
  if (!value) return undefined;
  if (rules.enum !== undefined && !rules.enum.includes(value)) throw invalidParameter(spec.name, `must be one of ${rules.enum.join(', ')}`);
  return value;
}

function decodeCursor(name: string, raw: string, fingerprint: string): number {
  if (/^\d+$/.test(raw)) return parseInteger(name, raw, 0, Number.MAX_SAFE_INTEGER);
  const token = decodePageToken(raw);
  if (!token) throw invalidParameter(name, 'is not a token this service issued');
  if (token.fingerprint !== fingerprint) throw invalidParameter(name, 'belongs to a different query; keep the filters, q and sort of the page that issued it');
  if (!Number.isSafeInteger(token.offset)) throw invalidParameter(name, `must be at most ${Number.MAX_SAFE_INTEGER}`);
  return token.offset;
}

/** Stable fingerprint of everything but paging, so a cursor can't be replayed against another query. */
export function queryFingerprint(query: Omit<ListingQuery, 'limit' | 'offset'>): string {
  const parts: unknown[] = [
    query.q ?? '',
    query.semantic ?? '',
    query.types ?? [],
    query.category ?? '',
    query.owner?.toLowerCase() ?? '',
    query.sort ?? '',
    query.updatedSince ?? '',
  ];
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
    const listed = [
      ...new Set(
        typeList
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
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
