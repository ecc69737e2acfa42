// Typo tolerance of `q` (src/search/spelling.ts, QueryEngine.keyword): only when a query has no exact hits and a
// word of it is in no listing, that word is replaced by the closest term of the index (fewest edits, then most
// listings, then term order; first letter kept; nothing under 4 characters), the corrected query is searched, and
// the answer says so in Search-Corrected. Misspellings are made from real catalog words and checked to be in no
// listing; expected pages are those of the correct words, never stored lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ListingPageSchema } from '../../src/domain/schemas.ts';
import { closestTerm, editDistance, editsAllowed } from '../../src/search/spelling.ts';
import { TermTable } from '../../src/search/term-table.ts';
import { indexTerms, stem } from '../../src/search/tokenizer.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

type Page = z.infer<typeof ListingPageSchema>;

describe('edit distance', () => {
  it('counts an insertion, a deletion, a change and a swap of neighbours as one edit each', () => {
    expect(editDistance('kubernetis', 'kubernetes', 2)).toBe(1);
    expect(editDistance('telegarm', 'telegram', 2)).toBe(1);
    expect(editDistance('dockr', 'docker', 2)).toBe(1);
    expect(editDistance('dockerr', 'docker', 2)).toBe(1);
    expect(editDistance('notoin', 'notion', 2)).toBe(1);
    expect(editDistance('postgers', 'postgres', 2)).toBe(1);
    expect(editDistance('postgres', 'postgres', 2)).toBe(0);
    expect(editDistance('elasticsaerh', 'elasticsearch', 2)).toBe(2);
  });

  it('stops at the bound: max + 1 for anything further', () => {
    expect(editDistance('abcdef', 'uvwxyz', 1)).toBe(2);
    expect(editDistance('abcdef', 'abcdefghij', 2)).toBe(3);
    expect(editDistance('kubernetis', 'kubernetes', 0)).toBe(1);
  });

  it('allows no edit under 4 characters, one from 4, two from 8', () => {
    expect([3, 4, 7, 8, 20].map(editsAllowed)).toEqual([0, 1, 1, 2, 2]);
  });
});

describe('the closest term', () => {
  const table = (counts: Record<string, number>) => {
    const terms = TermTable.of(Object.keys(counts).sort());
    return { terms, listings: (t: number) => counts[terms.at(t)]! };
  };
  const closest = (counts: Record<string, number>, word: string) => {
    const { terms, listings } = table(counts);
    const t = closestTerm(terms, listings, word, stem(word));
    return t < 0 ? undefined : terms.at(t);
  };

  it('is the term fewest edits away, then the one in most listings, then the first', () => {
    expect(closest({ telegram: 1, telegraph: 500, telegrams: 200 }, 'telegarm')).toBe('telegram');
    expect(closest({ slack: 10, slake: 2 }, 'slakc')).toBe('slack');
    expect(closest({ slack: 2, slake: 10 }, 'slakc')).toBe('slake');
    expect(closest({ slack: 5, slake: 5 }, 'slakc')).toBe('slack');
  });

  it('keeps the first letter, corrects no word under 4 characters and none beyond its edits', () => {
    expect(closest({ telegram: 9 }, 'elegram')).toBeUndefined();
    expect(closest({ git: 9, gti: 1 }, 'gtx')).toBeUndefined();
    expect(closest({ docker: 9 }, 'dcokre')).toBeUndefined();
    expect(closest({ kubernetes: 9 }, 'kubernetis')).toBe('kubernetes');
  });

  it('compares terms beyond ASCII too', () => {
    expect(closest({ привет: 3, приветы: 1 }, 'првиет')).toBe('привет');
    expect(closest({ документ: 3 }, 'докуменм')).toBe('документ');
    expect(closest({ документ: 3 }, 'окумент')).toBeUndefined();
  });
});

describe('a misspelled q, through the listing route', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startInProcess();
  });
  afterAll(() => server.close());

  const isTerm = (word: string) => server.app.services.catalog.current.store.keywords.terms.indexOf(word) >= 0;

  async function search(query: string): Promise<{ page: Page; corrected: string | null; match: string | null; exposed: string | null }> {
    const res = await server.fetch(`/api/v1/listings?${query}`);
    expect(res.status, query).toBe(200);
    const corrected = res.headers.get('Search-Corrected');
    return {
      page: ListingPageSchema.parse(await json(res)),
      corrected: corrected === null ? null : decodeURIComponent(corrected),
      match: res.headers.get('Search-Match'),
      exposed: res.headers.get('Access-Control-Expose-Headers'),
    };
  }

  /** `word` with its letters i and i + 1 swapped: one edit, first letter kept. */
  const swapped = (word: string, i: number) => word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);

  it('searches the closest catalog word instead, says so, and answers as that word does', async () => {
    for (const [word, at] of [
      ['kubernetes', 4],
      ['telegram', 5],
      ['playwright', 3],
      ['elasticsearch', 6],
    ] as const) {
      expect(isTerm(word), word).toBe(true);
      const typo = swapped(word, at);
      expect(isTerm(typo), typo).toBe(false);
      const wrong = await search(`q=${typo}&limit=20`);
      const right = await search(`q=${word}&limit=20`);
      expect(wrong.corrected, typo).toBe(word);
      expect(right.corrected).toBeNull();
      expect(wrong.page.items.length).toBeGreaterThan(0);
      expect(wrong.page.items.map((item) => item.id)).toEqual(right.page.items.map((item) => item.id));
      expect(wrong.page.total).toBe(right.page.total);
      expect(wrong.exposed).toContain('Search-Corrected');
    }
  });

  it('corrects the misspelled word of a query whose other words match, when the correction has exact hits', async () => {
    const typo = swapped('kubernetes', 4);
    const { page, corrected, match } = await search(`q=${typo}+mcp&limit=10`);
    expect(corrected).toBe('kubernetes mcp');
    expect(match).toBeNull();
    for (const item of page.items) {
      const terms = new Set([
        ...indexTerms(item.name, true),
        ...indexTerms([item.repo.replace('/', ' '), item.author, ...item.tags, ...(item.categories ?? []), item.description].join(' ')),
      ]);
      expect(terms.has('kubernetes') && terms.has('mcp'), item.id).toBe(true);
    }
  });

  it('keeps a corrected compound whole, so it still matches written as one word', async () => {
    expect(isTerm('front') && isTerm('frontend'), 'front, frontend').toBe(true);
    const typo = swapped('front', 2);
    expect(isTerm(typo), typo).toBe(false);
    const wrong = await search(`q=${typo}-end&limit=20`);
    const right = await search('q=front-end&limit=20');
    expect(wrong.corrected).toBe('front-end');
    expect(wrong.page.total).toBe(right.page.total);
    expect(wrong.page.items.map((item) => item.id)).toEqual(right.page.items.map((item) => item.id));
  });

  it('keeps sorts, filters and the raw route', async () => {
    const typo = swapped('telegram', 5);
    const sorted = await search(`q=${typo}&sort=stars&type=mcp&limit=10`);
    const right = await search('q=telegram&sort=stars&type=mcp&limit=10');
    expect(sorted.corrected).toBe('telegram');
    expect(sorted.page.items.map((item) => item.id)).toEqual(right.page.items.map((item) => item.id));
    const raw = await server.fetch(`/api/upstream/listings?q=${typo}&limit=5`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('Search-Corrected')).toBe('telegram');
    const rightRaw = await server.fetch('/api/upstream/listings?q=telegram&limit=5');
    expect(await json(raw)).toEqual(await json(rightRaw));
  });

  it('documents Search-Corrected in the OpenAPI of both listing searches', async () => {
    const res = await server.fetch('/openapi.json');
    expect(res.status).toBe(200);
    const spec = (await json(res)) as {
      components: { headers: Record<string, { description: string }> };
      paths: Record<string, { get?: { responses: Record<string, { headers?: Record<string, unknown> }> } }>;
    };
    expect(spec.components.headers['Search-Corrected']?.description).toMatch(/closest word/);
    for (const path of ['/api/v1/listings', '/api/upstream/listings']) {
      expect(spec.paths[path]?.get?.responses['200']?.headers?.['Search-Corrected'], path).toEqual({ $ref: '#/components/headers/Search-Corrected' });
    }
  });

  it('leaves alone a query with exact hits, a word some listing holds, and a short word', async () => {
    expect((await search('q=kubernetes')).corrected).toBeNull();
    // "postgress" is in a listing (aws-postgress-mcp-server): it is searched as sent.
    expect(isTerm('postgress')).toBe(true);
    const known = await search('q=postgress');
    expect(known.corrected).toBeNull();
    expect(known.page.total).toBeGreaterThan(0);
    const short = 'gti';
    expect(isTerm(short)).toBe(false);
    expect((await search(`q=${short}`)).corrected).toBeNull();
    const nothing = await search('q=zzqqxxvvkk');
    expect(nothing.corrected).toBeNull();
    expect(nothing.page.total).toBe(0);
  });
});
