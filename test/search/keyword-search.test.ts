// Guarantees keyword search (q) over the embedded snapshot through the real listing route: every result of a
// page contains each query word (a table of real catalog words, incl. -ion/-ing/-ment and short words), names
// match by their parts, symbol words and numbers with dots are words of their own, a description's neighbouring
// words match as the word a name writes in parts, an exact name comes first, a famous listing makes the first page
// for a common word of its name, partial answers say so, and sorts, filters and cursor walks keep their contract
// with q.
// Expectations come from the snapshot's records, never from stored result lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ListingPageSchema, type ListingRecord } from '../../src/domain/schemas.ts';
import { authorName } from '../../src/domain/listing/listing-view.ts';
import { compareBy, popularityPrior, SORTS } from '../../src/domain/listing/ranking.ts';
import { indexTerms, nameJoins, nameKey, normalize, parseQuery, stem, wordPairs } from '../../src/search/tokenizer.ts';
import { PARTIAL_BELOW } from '../../src/search/keyword-search.ts';
import { snapshotRecords } from '../support/fixtures.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

type Page = z.infer<typeof ListingPageSchema>;
type Item = Page['items'][number];

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

async function search(query: string): Promise<{ page: Page; match: string | null; mode: string | null }> {
  const res = await server.fetch(`/api/v1/listings?${query}`);
  expect(res.status, query).toBe(200);
  return { page: ListingPageSchema.parse(await json(res)), match: res.headers.get('Search-Match'), mode: res.headers.get('Search-Mode') };
}

/** Every result of a cursor walk, in order. */
async function walk(query: string, limit = 50): Promise<Item[]> {
  const items: Item[] = [];
  let next: string | null = `/api/v1/listings?${query}&limit=${limit}`;
  while (next) {
    const res: Response = await server.fetch(next.replace(/^https?:\/\/[^/]+/, ''));
    expect(res.status).toBe(200);
    const page = ListingPageSchema.parse(await json(res));
    items.push(...page.items);
    next = page.next;
  }
  return items;
}

/** The words some listing's name writes in parts: the word pairs of descriptions that the index holds joined. */
const NAME_JOINS = new Set(snapshotRecords().flatMap((record) => nameJoins(record.name)));

/** The terms of a listing's searchable text (name, repo, author, tags, categories, description). */
function termsOf(item: {
  name: string;
  repo: string;
  author: string;
  description: string;
  tags: readonly string[];
  categories?: readonly string[];
}): Set<string> {
  const rest = [item.repo.replace('/', ' '), item.author, ...item.tags, ...(item.categories ?? []), item.description].join(' ');
  const pairs = wordPairs(item.description).filter((pair) => NAME_JOINS.has(pair));
  return new Set([...indexTerms(item.name, true), ...indexTerms(rest), ...pairs]);
}

/** Folded text of a listing, for a check that does not rely on the tokenizer. */
function textOf(item: { name: string; repo: string; author: string; description: string; tags: readonly string[] }): string {
  return normalize([item.name, item.repo, item.author, ...item.tags, item.description].join(' ')).replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Does the listing contain the query word (its term, or for the last word a term it begins)? */
function contains(item: Item, word: string, last: boolean): boolean {
  const terms = termsOf(item);
  const term = stem(word);
  if (terms.has(term)) return true;
  return last && word.length >= 3 && [...terms].some((t) => t.startsWith(word));
}

// Real words of the catalog: -ion, -ing, -ment words, short words and the words of the issue's report.
const PRECISION_WORDS = [
  'notion',
  'drive',
  'registration',
  'remotion',
  'automation',
  'generation',
  'integration',
  'migration',
  'documentation',
  'validation',
  'translation',
  'transcription',
  'testing',
  'scraping',
  'streaming',
  'logging',
  'monitoring',
  'debugging',
  'routing',
  'caching',
  'onboarding',
  'deployment',
  'management',
  'environment',
  'payment',
  'document',
  'agent',
  'api',
  'aws',
  'git',
  'sql',
  'pdf',
  'css',
  'ui',
  'seo',
  'llm',
  'mcp',
  'ios',
  'docker',
  'kubernetes',
  'postgres',
  'redis',
  'slack',
  'github',
  'figma',
  'stripe',
  'react',
  'python',
  'rust',
  'browser',
  'memory',
  'search',
  'email',
  'calendar',
  'video',
  'voice',
  'image',
  'security',
  'notes',
  'skills',
  'servers',
  'excel',
  'weather',
  'crypto',
  'shopify',
];

describe('precision: every result contains every query word', () => {
  it.each(PRECISION_WORDS)('q=%s (first two pages)', async (word) => {
    const { page: first, match } = await search(`q=${word}&limit=50`);
    expect(first.items.length, `no result for ${word}`).toBeGreaterThan(0);
    expect(match).toBeNull();
    const items = [...first.items];
    if (first.next) items.push(...(await search(`q=${word}&limit=50&offset=50`)).page.items);
    const misses = items.filter((item) => !contains(item, word, true)).map((item) => item.id);
    expect(misses, `results of q=${word} without "${word}"`).toEqual([]);
  });

  it.each(['notion', 'drive', 'registration', 'remotion'])('q=%s: the reported false matches are gone (every result spells the word)', async (word) => {
    for (const type of ['skill', 'mcp', undefined]) {
      const { page } = await search(`q=${word}&limit=100${type ? `&type=${type}` : ''}`);
      // A whole-word, inflected or prefix match spells the word; the old stem matches (notebooklm, drawio, registry, remote-browser) do not.
      const root = word.replace(/e$/, ''); // "driving" spells drive's root too
      const misses = page.items.filter((item) => !textOf(item).includes(root)).map((item) => item.name);
      expect(misses, `q=${word} type=${type}`).toEqual([]);
    }
  });

  it('every result of a two-word query contains both words, on every page of a cursor walk', async () => {
    const items = await walk('q=google%20drive');
    expect(items.length).toBeGreaterThan(10);
    for (const item of items) {
      expect(contains(item, 'google', false), item.id).toBe(true);
      expect(contains(item, 'drive', true), item.id).toBe(true);
    }
  });
});

describe('names match by their parts', () => {
  const records = snapshotRecords();
  const multiPart = (pattern: RegExp) =>
    records
      .filter((r) => pattern.test(r.name))
      .filter((_, i) => i % 25 === 0)
      .slice(0, 12);

  it.each([
    ['hyphenated', /^[a-z0-9]+-[a-z0-9]+(-[a-z0-9]+)*$/],
    ['camel-cased', /^[A-Z]?[a-z]+[A-Z][a-z]+[A-Za-z]*$/],
    ['underscored', /^[a-z0-9]+_[a-z0-9]+(_[a-z0-9]+)*$/],
  ])('a %s name is found by each of its parts', async (_kind, pattern) => {
    const sample = multiPart(pattern);
    expect(sample.length).toBeGreaterThan(3);
    for (const record of sample) {
      const owner = record.repo.split('/')[0]!;
      for (const part of parseQuery(record.name.replace(/([a-z])([A-Z])/g, '$1 $2')).tokens) {
        const items = await walk(`q=${encodeURIComponent(part.surface)}&owner=${encodeURIComponent(owner)}&type=${record.type}`, 100);
        expect(
          items.map((item) => item.id),
          `${record.name} by "${part.surface}"`,
        ).toContain(record.id);
      }
    }
  });

  it('find-skills is found by find and by skills; GitHubMCP by github and by mcp', async () => {
    const findSkills = records.find((r) => r.name === 'find-skills')!;
    const githubMcp = records.find((r) => r.name === 'GitHubMCP')!;
    for (const [record, word] of [
      [findSkills, 'find'],
      [findSkills, 'skills'],
      [githubMcp, 'github'],
      [githubMcp, 'mcp'],
    ] as const) {
      const items = await walk(`q=${word}&owner=${record.repo.split('/')[0]}`, 100);
      expect(
        items.map((item) => item.id),
        `${record.name} by ${word}`,
      ).toContain(record.id);
    }
  });
});

describe('CJK words: found inside longer runs of text', () => {
  const records = snapshotRecords();
  const fields = (r: { name: string; repo: string; author: string; description: string; tags: readonly string[]; categories?: readonly string[] }) =>
    normalize([r.name, r.repo, authorName(r.author, r.repo), ...r.tags, ...(r.categories ?? []), r.description].join(' \n '));

  // WeChat, translation, database, stocks: each written inside longer Chinese text by most listings that have it.
  it.each(['微信', '翻译', '数据库', '股票'])('q=%s finds every listing that writes it, and only those', async (word) => {
    const expected = records.filter((r) => fields(r).includes(word)).map((r) => r.id);
    expect(expected.length, `listings writing ${word}`).toBeGreaterThan(3);
    const items = await walk(`q=${encodeURIComponent(word)}`);
    const pairs = parseQuery(word).tokens.map((t) => t.term);
    for (const item of items)
      expect(
        pairs.every((pair) => fields(item).includes(pair)),
        `${item.name} for q=${word}`,
      ).toBe(true);
    expect(items.map((item) => item.id)).toEqual(expect.arrayContaining(expected));
    if (pairs.length === 1) expect(items.length).toBe(expected.length);
  });
});

describe('symbol words: c#, c++, f#, .net', () => {
  const records = snapshotRecords();
  // Written as a word of its own: not inside a longer word ("abc#", "asp.net").
  const written: Record<string, RegExp> = {
    'c#': /(?<![\p{L}\p{N}])c#(?![\p{L}+#])/u,
    'c++': /(?<![\p{L}\p{N}])c\+\+(?![\p{L}+#])/u,
    'f#': /(?<![\p{L}\p{N}])f#(?![\p{L}+#])/u,
    '.net': /(?<![\p{L}\p{N}._-])\.net(?![\p{L}\p{N}]|[./][\p{L}\p{N}])/u,
  };
  const fields = (r: { name: string; repo: string; author: string; description: string; tags: readonly string[]; categories?: readonly string[] }) =>
    normalize([r.name, r.repo, authorName(r.author, r.repo), ...r.tags, ...(r.categories ?? []), r.description].join(' \n '));

  it.each(Object.keys(written))('q=%s finds exactly the listings that write it, and no listing that only has its letters', async (word) => {
    const items = await walk(`q=${encodeURIComponent(word)}`);
    const expected = records.filter((r) => written[word]!.test(fields(r))).map((r) => r.id);
    expect(expected.length, `listings writing ${word}`).toBeGreaterThan(0);
    expect(items.map((item) => item.id).sort()).toEqual([...expected].sort());
  });

  it('a C# listing comes first for q=c#, a C++ one for q=c++ (they were C listings before)', async () => {
    for (const word of ['c#', 'c++']) {
      const { page } = await search(`q=${encodeURIComponent(word)}&limit=5`);
      for (const item of page.items) expect(written[word]!.test(fields(item)), `${item.name} for q=${word}`).toBe(true);
    }
  });

  it('the letters of a symbol word still find it: q=net finds the .NET listings', async () => {
    const dotnet = records.filter((r) => written['.net']!.test(fields(r))).slice(0, 5);
    for (const record of dotnet) {
      const items = await walk(`q=net&owner=${encodeURIComponent(record.repo.split('/')[0]!)}`, 100);
      expect(
        items.map((item) => item.id),
        record.name,
      ).toContain(record.id);
    }
  });
});

describe('numbers with dots are one word: 2.0, 3.12', () => {
  const records = snapshotRecords();
  const fields = (r: { name: string; repo: string; author: string; description: string; tags: readonly string[] }) =>
    normalize([r.name, r.repo, authorName(r.author, r.repo), ...r.tags, r.description].join(' \n '));
  const escaped = (number: string) => number.replaceAll('.', '\\.');
  // Holding the number, maybe as the start of a longer one (the last word is also a prefix): not 20 for 2.0.
  const holds = (number: string) => new RegExp(`(?<![\\p{N}.])${escaped(number)}`, 'u');
  // Written as a word of its own, after a space or a bracket, not followed by a digit or a letter.
  const writes = (number: string) => new RegExp(`(?:^|[\\s(])${escaped(number)}(?![\\p{L}\\p{N}]|\\.\\p{N})`, 'u');

  it.each([
    ['2.0', []],
    ['3.12', []],
    ['oauth 2.0', ['oauth']],
  ])('q=%s: every result holds the number, and every listing that writes it is found', async (query, words) => {
    const number = query.split(' ').at(-1)!;
    const items = await walk(`q=${encodeURIComponent(query)}`, 100);
    expect(items.length).toBeGreaterThan(0);
    expect(items.filter((item) => !holds(number).test(fields(item))).map((item) => item.name)).toEqual([]);
    const found = new Set(items.map((item) => item.id));
    const writing = records.filter((r) => writes(number).test(fields(r)) && words.every((word) => termsOf(r).has(stem(word))));
    expect(writing.length).toBeGreaterThan(2);
    expect(writing.filter((r) => !found.has(r.id)).map((r) => r.name)).toEqual([]);
  });
});

describe('irregular plurals find their singular', () => {
  it.each([
    ['indices', 'index'],
    ['analyses', 'analysis'],
  ])('q=%s finds every listing holding %s', async (plural, singular) => {
    const found = new Set((await walk(`q=${plural}`, 200)).map((item) => item.id));
    const holding = (await walk(`q=${singular}`, 200)).filter((item) => termsOf(item).has(stem(singular)));
    expect(holding.length).toBeGreaterThan(10);
    expect(holding.filter((item) => !found.has(item.id)).map((item) => item.id)).toEqual([]);
  });
});

describe('a compound in the query also matches it written as one word', () => {
  it.each([
    ['web-hook', 'webhook'],
    ['front-end', 'frontend'],
    ['e-mail', 'email'],
    ['plug-in', 'plugin'],
    ['real-time', 'realtime'],
    ['to-do', 'todo'],
  ])('q=%s finds every listing holding %s, and only listings holding its parts or the joined word', async (compound, joined) => {
    const found = await walk(`q=${compound}`, 200);
    const ids = new Set(found.map((item) => item.id));
    // The joined word itself, not its completions ("emailable" answers q=email as a prefix).
    const ofJoined = (await walk(`q=${joined}`, 200)).filter((item) => termsOf(item).has(stem(joined)));
    expect(ofJoined.length).toBeGreaterThan(10);
    expect(ofJoined.filter((item) => !ids.has(item.id)).map((item) => item.id)).toEqual([]);
    const words = parseQuery(compound).tokens;
    const misses = found.filter((item) => !termsOf(item).has(stem(joined)) && !words.every((word, i) => contains(item, word.surface, i === words.length - 1)));
    expect(misses.map((item) => item.id)).toEqual([]);
  });

  it('ranks the listings writing the compound joined first when the parts are a common word and a stop word', async () => {
    // "plug-in" is "plug" once "in" is dropped: listings that only write "plugs" outranked every plugin.
    const { page } = await search('q=plug-in&limit=10');
    const withPlugin = page.items.filter((item) => termsOf(item).has('plugin'));
    expect(withPlugin.length).toBeGreaterThanOrEqual(8);
    expect(termsOf(page.items[0]!).has('plugin')).toBe(true);
  });
});

describe("a description's neighbouring words match as the word a name writes in parts", () => {
  const records = snapshotRecords();
  it.each(['codereview', 'pullrequest', 'websearch'])('q=%s finds every listing whose description writes its parts side by side', async (joined) => {
    expect(NAME_JOINS.has(joined), `a name writes ${joined} in parts`).toBe(true);
    const writing = records.filter((r) => wordPairs(r.description).includes(joined) && !indexTerms(r.description).includes(joined));
    expect(writing.length).toBeGreaterThan(10);
    const found = new Set((await walk(`q=${joined}`, 200)).map((item) => item.id));
    expect(writing.filter((r) => !found.has(r.id)).map((r) => r.id)).toEqual([]);
  });
});

describe('ranking', () => {
  const records = snapshotRecords();
  const popularity = (r: Pick<ListingRecord, 'type' | 'installs' | 'stars' | 'metrics'>) => popularityPrior(r.type, r.installs, r.stars, r.metrics);

  it('an exact name ranks first, or below more popular matches only', async () => {
    // Distinct names of a deterministic sample, each asked as a query.
    const names = [...new Set(records.filter((_, i) => i % 97 === 0).map((r) => r.name))];
    expect(names.length).toBeGreaterThan(200);
    let held = 0;
    const failures: string[] = [];
    for (const name of names) {
      const { page } = await search(`q=${encodeURIComponent(name)}&limit=50`);
      const at = page.items.findIndex((item) => nameKey(item.name) === nameKey(name));
      const exact = page.items[at];
      const ok = exact !== undefined && page.items.slice(0, at).every((item) => popularity(item) > popularity(exact));
      if (ok) held++;
      else failures.push(name);
    }
    // Very common one-word names ("agent", "skills") may sit below many more popular matches.
    expect(held / names.length, failures.join(', ')).toBeGreaterThanOrEqual(0.98);
  });

  it('a name asked exactly, with its separators or with spaces, puts that listing first, or below more popular ones by real figures only', async () => {
    for (const query of ['find-skills', 'find skills', 'vercel-react-best-practices']) {
      const { page } = await search(`q=${encodeURIComponent(query)}`);
      expect(nameKey(page.items[0]!.name), query).toBe(nameKey(query));
    }
    // GitHubMCP's figures are synthetic: they lift it over no listing, so GitHub's own server, on real stars, may lead.
    const { page } = await search('q=GitHubMCP');
    const at = page.items.findIndex((item) => nameKey(item.name) === nameKey('GitHubMCP'));
    expect(at).toBeGreaterThanOrEqual(0);
    for (const item of page.items.slice(0, at)) expect(popularity(item)).toBeGreaterThan(popularity(page.items[at]!));
  });

  it.each([
    ['speech to text', 'text to speech'],
    ['text to speech', 'speech to text'],
    ['figma to cursor', 'cursor to figma'],
  ])('word order counts: listings named "%s" come before those named "%s" for that query', async (asked, reversed) => {
    const { page } = await search(`q=${encodeURIComponent(asked)}&limit=50`);
    const names = page.items.map((item) => nameKey(item.name));
    const lastAsked = names.lastIndexOf(nameKey(asked));
    const firstReversed = names.indexOf(nameKey(reversed));
    expect(lastAsked, names.join(', ')).toBeGreaterThanOrEqual(0);
    expect(firstReversed, names.join(', ')).toBeGreaterThanOrEqual(0);
    expect(lastAsked, names.join(', ')).toBeLessThan(firstReversed);
  });

  it.each(['skills', 'react', 'design', 'pdf', 'github', 'browser'])(
    'the most-installed listing with "%s" in its name is on the first page of q=%s',
    async (word) => {
      const famous = records
        .filter((r) => indexTerms(r.name, true).includes(stem(word)))
        .sort((a, b) => popularity(b) - popularity(a) || (a.id < b.id ? -1 : 1))[0]!;
      const { page } = await search(`q=${word}`);
      expect(
        page.items.map((item) => item.id),
        `${famous.id} (${famous.installs} installs)`,
      ).toContain(famous.id);
    },
  );

  const has = (r: ListingRecord, word: string) => termsOf({ ...r, categories: [r.category, ...(r.categories ?? [])] }).has(stem(word));

  it('answers partial matches only with Search-Match: partial, each result holding a query word', async () => {
    // Two words of the catalog that no listing has together (found from the records).
    const pair = [
      ['notion', 'kubernetes'],
      ['remotion', 'solana'],
      ['weather', 'figma'],
    ].find(([a, b]) => !records.some((r) => has(r, a!) && has(r, b!)))!;
    expect(pair).toBeDefined();
    const { page, match } = await search(`q=${pair.join('%20')}&limit=50`);
    expect(match).toBe('partial');
    expect(page.items.length).toBeGreaterThan(0);
    for (const item of page.items)
      expect(
        pair.some((word) => contains(item, word, word === pair[1])),
        item.id,
      ).toBe(true);
    const { match: single } = await search(`q=${pair[0]}`);
    expect(single).toBeNull();
  });

  it('ranks a partial answer by meaning (Search-Mode: hybrid) after the listings that hold every word', async () => {
    expect(await server.app.semantic.settled).toBe('ready');
    // Two catalog words that 1 to 9 listings hold together: fewer than PARTIAL_BELOW, so the answer is partial.
    const words = [
      'slack',
      'github',
      'notion',
      'figma',
      'postgres',
      'docker',
      'kubernetes',
      'stripe',
      'pdf',
      'excel',
      'calendar',
      'email',
      'weather',
      'jira',
      'redis',
      'gmail',
      'discord',
      'supabase',
    ];
    const holding = new Map(words.map((word) => [word, new Set<string>()]));
    for (const r of records) {
      const terms = termsOf({ ...r, categories: [r.category, ...(r.categories ?? [])] });
      for (const word of words) if (terms.has(stem(word))) holding.get(word)!.add(r.id);
    }
    const joint = (x: string, y: string) => [...holding.get(x)!].filter((id) => holding.get(y)!.has(id));
    const pairs = words.flatMap((x, i) => words.slice(i + 1).map((y) => [x, y] as const));
    const [a, b] = pairs.find(([x, y]) => joint(x, y).length >= 1 && joint(x, y).length < PARTIAL_BELOW)!;
    const full = joint(a, b);
    const { page, match, mode } = await search(`q=${a}%20${b}&limit=50`);
    expect([match, mode]).toEqual(['partial', 'hybrid']);
    expect(new Set(page.items.slice(0, full.length).map((item) => item.id))).toEqual(new Set(full));
    expect(page.items.length).toBeGreaterThan(full.length);
    for (const item of page.items) expect(contains(item, a, false) || contains(item, b, true), item.id).toBe(true);
    // The vectors rank listings that hold a word of the request, never one that holds none: over a whole answer.
    const text = 'turn a PDF into structured text';
    const tokens = parseQuery(text).tokens;
    const { page: sentence, mode: sentenceMode } = await search(`q=${encodeURIComponent(text)}&limit=2000`);
    expect(sentenceMode).toBe('hybrid');
    expect(sentence.items.length).toBeGreaterThan(50);
    for (const item of sentence.items)
      expect(
        tokens.some((token, i) => contains(item, token.surface, i === tokens.length - 1)),
        item.id,
      ).toBe(true);
    // An explicit sort orders every partial match by that sort, as keywords find them.
    const { page: sorted, mode: sortedMode } = await search(`q=${a}%20${b}&sort=stars&limit=50`);
    expect(sortedMode).toBeNull();
    expect(sorted.total).toBeGreaterThan(page.total);
  });
});

describe('sorts, filters and cursors with q', () => {
  it.each(SORTS)('sort=%s orders the same matches as relevance, by the sort then id, with a stable cursor walk', async (sort) => {
    const byRelevance = await walk('q=database');
    const sorted = await walk(`q=database&sort=${sort}`);
    expect(new Set(sorted.map((item) => item.id)).size).toBe(sorted.length);
    expect(sorted.map((item) => item.id).sort()).toEqual(byRelevance.map((item) => item.id).sort());
    const compare = compareBy(sort);
    for (let i = 1; i < sorted.length; i++) expect(compare(sorted[i - 1]!, sorted[i]!), `${sort} at ${i}`).toBeLessThan(0);
    // The same walk twice, with another page size, gives the same order.
    expect((await walk(`q=database&sort=${sort}`, 7)).map((item) => item.id)).toEqual(sorted.map((item) => item.id));
  });

  it('relevance walks are stable across page sizes and contain no duplicate', async () => {
    const a = await walk('q=memory', 50);
    const b = await walk('q=memory', 13);
    expect(b.map((item) => item.id)).toEqual(a.map((item) => item.id));
    expect(new Set(a.map((item) => item.id)).size).toBe(a.length);
  });

  it('type, category and owner filters keep exactly the matching listings', async () => {
    const all = await walk('q=server', 100);
    const { page: first } = await search('q=server&type=mcp&limit=1');
    const category = first.items[0]!.categories[0]!;
    const owner = first.items[0]!.repo.split('/')[0]!;
    const expectSubset = async (query: string, keep: (item: Item) => boolean) => {
      const filtered = await walk(`q=server&${query}`, 100);
      expect(filtered.map((item) => item.id).sort(), query).toEqual(
        all
          .filter(keep)
          .map((item) => item.id)
          .sort(),
      );
    };
    await expectSubset('type=mcp', (item) => item.type === 'mcp');
    await expectSubset('types=mcp,skill', (item) => item.type === 'mcp' || item.type === 'skill');
    await expectSubset(`category=${category}`, (item) => item.categories.includes(category));
    await expectSubset(
      `owner=${owner}`,
      (item) => item.repo.split('/')[0]!.toLowerCase() === owner.toLowerCase() || item.author.toLowerCase() === owner.toLowerCase(),
    );
  });
});

describe('category words', () => {
  it('q=browser automation&type=mcp has microsoft/playwright-mcp, categorised browser automation, in the first 10', async () => {
    const { page } = await search('q=browser%20automation&type=mcp&limit=10');
    expect(page.items.map((item) => item.repo)).toContain('microsoft/playwright-mcp');
  });

  it("a category's words find every listing of the category, even one whose own text never writes them", async () => {
    const { page: all } = await search('type=mcp&category=browser-automation&limit=1');
    const { page: matched } = await search('q=browser%20automation&type=mcp&category=browser-automation&limit=1');
    expect(matched.total).toBe(all.total);
    const silent = snapshotRecords().filter(
      (r) => r.type === 'mcp' && (r.categories ?? [r.category]).includes('browser-automation') && !textOf(r).includes('browserautomation'),
    );
    expect(silent.length).toBeGreaterThan(0);
  });

  it("counts below the listing's own words: a name that says it outranks a category that says it, popularity aside", async () => {
    // Two listings of one type and near-equal popularity: the one naming the words comes first.
    const { items } = (await search('q=browser%20automation&type=skill&limit=200')).page;
    const named = items.filter((item) => /browser.?automation/i.test(item.name));
    const onlyCategorised = items.filter((item) => !textOf(item).includes('browserautomation'));
    expect(named.length).toBeGreaterThan(0);
    expect(onlyCategorised.length).toBeGreaterThan(0);
    const firstNamed = items.indexOf(named[0]!);
    const popularity = (item: Item) => popularityPrior(item.type, item.installs, item.stars, item.metrics);
    // Every categorised-only listing ranked above the first naming one is more popular than it.
    for (const item of items.slice(0, firstNamed)) if (onlyCategorised.includes(item)) expect(popularity(item)).toBeGreaterThan(popularity(named[0]!));
  });
});
