// The listing search parameters, parsed straight from their ParamSpec table of zod rules (no server): defaults, each spec's
// rule (length, enum, integer range), the aliases, repeated parameters and the cursor's tie to its query.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import {
  checkedParam,
  LISTING_QUERY_PARAMS,
  paramRules,
  parseListingQuery,
  queryFingerprint,
  type ParamSpec,
} from '../../src/domain/contract/listing-query.ts';
import { ASK_PARAMS } from '../../src/domain/agents/ask-input.ts';
import { OPERATIONS } from '../../src/domain/contract/operations.ts';
import { encodePageToken } from '../../src/domain/contract/page-token.ts';
import { SORTS } from '../../src/domain/listing/ranking.ts';

const parse = (query: string, versioned = true) => parseListingQuery(new URLSearchParams(query), versioned);
const refusal = (query: string, versioned = true) => {
  try {
    parse(query, versioned);
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error(`${query} was accepted`);
};

describe('parseListingQuery', () => {
  it('has the defaults of the table', () => {
    expect(parse('')).toEqual({
      q: undefined,
      semantic: undefined,
      types: undefined,
      category: undefined,
      owner: undefined,
      updatedSince: undefined,
      risk: undefined,
      distinct: false,
      sort: undefined,
      limit: LIMITS.pageSize.default,
      offset: 0,
    });
  });

  it('reads every parameter, trimming text and treating blanks as absent', () => {
    const query = parse('q=%20notion%20&type=skill&category=databases&owner=Acme&updatedSince=2026-08-01T00:00:00.5Z&sort=stars&limit=7&offset=14');
    expect(query).toMatchObject({ q: 'notion', types: ['skill'], category: 'databases', owner: 'Acme', sort: 'stars', limit: 7, offset: 14 });
    // Rounded up to the whole second: a listing updated at 00:00:00 is before 00:00:00.5.
    expect(query.updatedSince).toBe(Date.parse('2026-08-01T00:00:01Z') / 1000);
    expect(parse('q=%20%20&sort=&limit=')).toMatchObject({ q: undefined, sort: undefined, limit: LIMITS.pageSize.default });
  });

  it('enforces each spec of the table: length, enum and integer range', () => {
    for (const spec of LISTING_QUERY_PARAMS) {
      const rules = paramRules(spec);
      if (rules.maxLength !== undefined)
        expect(refusal(`${spec.name}=${'a'.repeat(rules.maxLength + 1)}`).message).toContain(`'${spec.name}' must be at most ${rules.maxLength} characters`);
      if (rules.enum) expect(refusal(`${spec.name}=nope`).message).toContain(`must be one of ${rules.enum.join(', ')}`);
      if (rules.kind === 'integer') {
        expect(refusal(`${spec.name}=1.5`).message).toContain('must be an integer');
        expect(refusal(`${spec.name}=${(rules.min ?? 0) - 1}`).code).toBe('invalid_parameter');
        if (rules.max !== undefined) expect(refusal(`${spec.name}=${rules.max + 1}`).message).toContain(`between ${rules.min} and ${rules.max}`);
        else expect(refusal(`${spec.name}=99999999999999999999`).message).toContain(`must be at most ${Number.MAX_SAFE_INTEGER}`);
      }
    }
    expect(SORTS.map((sort) => parse(`sort=${sort}`).sort)).toEqual([...SORTS]);
  });

  it("reads each rule off the parameter's zod schema", () => {
    const byName = new Map(LISTING_QUERY_PARAMS.map((spec) => [spec.name, paramRules(spec)]));
    expect(byName.get('limit')).toEqual({ kind: 'integer', min: LIMITS.pageSize.min, max: LIMITS.pageSize.max, default: LIMITS.pageSize.default });
    expect(byName.get('offset')).toEqual({ kind: 'integer', min: 0, max: undefined, default: 0 });
    expect(byName.get('sort')).toEqual({ kind: 'string', enum: [...SORTS], default: 'installs' });
    expect(byName.get('q')).toEqual({ kind: 'string', maxLength: LIMITS.q, default: undefined });
    expect(byName.get('cursor')).toEqual({ kind: 'string', maxLength: undefined, default: undefined });
  });

  it('refuses a parameter given twice, by name', () => {
    expect(refusal('q=a&q=b').message).toContain("'q' must be given at most once");
  });

  it('narrows type and types to what both allow, and names a bad entry of types', () => {
    expect(parse('types=skill,mcp,skill').types).toEqual(['skill', 'mcp']);
    expect(parse('type=mcp&types=skill,mcp').types).toEqual(['mcp']);
    expect(parse('type=mcp&types=skill').types).toEqual([]);
    expect(refusal('types=skill,robot').message).toContain(`has 'robot'; each must be one of ${LISTING_TYPES.join(', ')}`);
  });

  it('reads pageSize, pageToken and cursor on the versioned operation only', () => {
    expect(parse('pageSize=5')).toMatchObject({ limit: 5 });
    expect(parse('pageSize=5', false)).toMatchObject({ limit: LIMITS.pageSize.default });
    expect(refusal('limit=5&pageSize=6').message).toContain('alias of limit');
    expect(parse('pageToken=40')).toMatchObject({ offset: 40 });
    expect(parse('cursor=40', false)).toMatchObject({ offset: 0 });
  });

  it('ties a cursor to the query that issued it', () => {
    const base = parse('q=notion&type=skill');
    const cursor = encodePageToken(20, queryFingerprint(base));
    expect(parse(`q=notion&type=skill&cursor=${cursor}`).offset).toBe(20);
    expect(refusal(`q=notion&type=mcp&cursor=${cursor}`).message).toContain('belongs to a different query');
    expect(refusal('cursor=not-a-token').message).toContain('is not a token this service issued');
    expect(refusal(`q=notion&type=skill&offset=10&cursor=${cursor}`).message).toContain('points at offset 20 but offset says 10');
  });

  it('checks one value against its spec, the rule every parser uses', () => {
    const limit = LISTING_QUERY_PARAMS.find((spec) => spec.name === 'limit')!;
    expect(checkedParam(limit, '25')).toBe(25);
    expect(checkedParam(limit, '')).toBeUndefined();
    expect(() => checkedParam(limit, '0')).toThrow(/between/);
  });
});

describe('checkedParam against the zod schemas', () => {
  // checkedParam applies the rules paramRules reads off each schema, without running zod per request: the two must
  // never disagree, on any parameter of any operation.
  it("accepts exactly what each spec's schema accepts, and returns what it parses", () => {
    const specs = new Set<ParamSpec>([...LISTING_QUERY_PARAMS, ...ASK_PARAMS, ...OPERATIONS.flatMap((operation) => operation.query ?? [])]);
    expect(specs.size).toBeGreaterThan(LISTING_QUERY_PARAMS.length);
    for (const spec of specs) {
      const rules = paramRules(spec);
      const probes = [
        'a',
        'nope',
        'STARS',
        'true',
        '1',
        '0',
        '-1',
        '20',
        '1.5',
        '1e3',
        '0x10',
        '2000',
        '2001',
        '9007199254740993',
        ...(rules.enum ?? []).flatMap((value) => [value, value.toUpperCase(), `${value}x`]),
      ];
      if (rules.maxLength !== undefined) probes.push('a'.repeat(rules.maxLength), 'a'.repeat(rules.maxLength + 1));
      if (rules.min !== undefined) probes.push(String(rules.min - 1), String(rules.min));
      if (rules.max !== undefined) probes.push(String(rules.max), String(rules.max + 1));
      for (const raw of probes) {
        const byZod = spec.schema.safeParse(rules.kind === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw);
        let ours: { ok: boolean; value?: unknown };
        try {
          ours = { ok: true, value: checkedParam(spec, raw) };
        } catch {
          ours = { ok: false };
        }
        expect(ours.ok, `${spec.name}=${raw}`).toBe(byZod.success);
        if (ours.ok) expect(ours.value, `${spec.name}=${raw}`).toBe(byZod.data);
      }
    }
  });
});
