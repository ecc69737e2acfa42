// Guarantees the keyword index: what the build writes the shim reads back unchanged, postings hold exactly the
// listings that contain a term, every word must match, the last word also matches as a prefix but below a
// whole word, the BM25F impacts order fields name > repo/author > tags > description, and a description's
// neighbouring words are indexed joined, with the phrase bonus, when a name writes them in parts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeywordIndexBuilder, type SearchableListing } from '../../src/search/index-builder.ts';
import { readKeywordIndex, writeKeywordIndex } from '../../src/search/index-file.ts';
import { KeywordSearcher, NAMED_MAX, PREFIX_MAX_TERMS, RESOLVED_CACHE_SIZE, type WordRanking } from '../../src/search/keyword-search.ts';
import { BLOCK_SIZE } from '../../src/search/index-file.ts';
import { relevanceScore, SEARCH_FIELDS } from '../../src/domain/listing/ranking.ts';
import { indexTerms } from '../../src/search/tokenizer.ts';
import { sampleRecords } from '../support/fixtures.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const listing = (name: string, description = '', repo = 'someone/something', tags: string[] = []): SearchableListing => ({
  name,
  description,
  repo,
  author: repo.split('/')[0]!,
  tags,
});

function searcherOf(listings: SearchableListing[]): KeywordSearcher {
  const builder = new KeywordIndexBuilder();
  listings.forEach((l) => builder.add(l));
  return new KeywordSearcher(builder.finish());
}

function matches(searcher: KeywordSearcher, query: string, mode: 'all' | 'any' = 'all'): { docs: number[]; partial: boolean } {
  const found = searcher.match(searcher.resolve(query), () => true, mode);
  const docs = Array.from(found.docs.subarray(0, found.count)).sort((a, b) => searcher.score[b]! - searcher.score[a]! || a - b);
  return { docs, partial: found.partial };
}

describe('keyword index file', () => {
  it('reads back exactly what the build wrote', () => {
    const builder = new KeywordIndexBuilder();
    const records = sampleRecords(30);
    records.forEach((record) => builder.add(record));
    const built = builder.finish();
    const dir = mkdtempSync(join(tmpdir(), 'keyword-index-'));
    dirs.push(dir);
    writeKeywordIndex(dir, built);
    const read = readKeywordIndex(dir);
    expect(read.count).toBe(records.length);
    expect(read.terms).toEqual(built.terms);
    const arrays = [
      'offsets',
      'docs',
      'impacts',
      'fields',
      'nameKeys',
      'nameOrder',
      'blockTerms',
      'blockStarts',
      'blockImpacts',
      'blockPopularity',
      'blockScores',
    ] as const;
    for (const name of arrays) expect(Array.from(read[name])).toEqual(Array.from(built[name]));
  });

  it('has, for every term, the listings whose text yields it, ascending', () => {
    const records = sampleRecords(20);
    const builder = new KeywordIndexBuilder();
    records.forEach((record) => builder.add({ ...record, categories: [record.category, ...(record.categories ?? [])] }));
    const index = builder.finish();
    const searcher = new KeywordSearcher(index);
    expect([...index.terms].sort()).toEqual([...index.terms]);
    const expected = new Map<string, Set<number>>();
    records.forEach((r, doc) => {
      const [owner, repoName] = r.repo.split('/');
      // A listing's categories count with its description (below its tags), one sentence each.
      const categories = [r.category, ...(r.categories ?? [])];
      const texts = [
        indexTerms(r.name, true),
        indexTerms(`${owner} ${repoName} ${r.author}`),
        indexTerms(r.tags.join(' ')),
        indexTerms(`${r.description}\n${categories.join('.\n')}.`),
      ];
      for (const term of texts.flat()) (expected.get(term) ?? expected.set(term, new Set()).get(term)!).add(doc);
    });
    expect(index.terms.length).toBe(expected.size);
    for (const [term, docs] of expected) {
      const t = searcher.termId(term);
      expect(t, term).toBeGreaterThanOrEqual(0);
      expect(Array.from(index.docs.subarray(index.offsets[t]!, index.offsets[t + 1]!))).toEqual([...docs].sort((a, b) => a - b));
    }
  });
});

describe('keyword matching', () => {
  const searcher = searcherOf([
    listing('notion-api', 'Create pages in Notion'),
    listing('notebooklm', 'Query notebooks'),
    listing('meeting-notes', 'Take notes in meetings'),
    listing('find-skills', 'Discover agent skills'),
    listing('GitHubMCP', 'Repository tools'),
    listing('remote-browser', 'Drive a remote browser'),
    listing('postgres-tools', 'Query a database', 'acme/pg'),
    listing('db-helper', 'Works with postgresql databases'),
    listing('skills', 'A collection'),
  ]);
  const names = ['notion-api', 'notebooklm', 'meeting-notes', 'find-skills', 'GitHubMCP', 'remote-browser', 'postgres-tools', 'db-helper', 'skills'];
  /** The listings matching every word (the ones a partial answer puts first). */
  const found = (query: string) => {
    const words = searcher.resolve(query).words.length;
    return matches(searcher, query)
      .docs.filter((doc) => searcher.hits[doc] === words)
      .map((doc) => names[doc]);
  };

  it('finds whole words only, never a word that merely shares a stem prefix', () => {
    expect(found('notion')).toEqual(['notion-api']);
    expect(found('remotion')).toEqual([]);
    expect(found('notes')).toEqual(['meeting-notes']);
  });

  it('matches the parts of hyphenated and camel-cased names', () => {
    expect(found('find')).toEqual(['find-skills']);
    expect(found('github')).toEqual(['GitHubMCP']);
    expect(found('github mcp')).toEqual(['GitHubMCP']);
    expect(found('findskills')).toEqual(['find-skills']);
  });

  it('requires every word', () => {
    expect(found('agent skills')).toEqual(['find-skills']);
    const [first] = matches(searcher, 'agent skills').docs;
    expect(names[first!]).toBe('find-skills');
    expect(found('query database')).toEqual(['postgres-tools']);
  });

  it('matches the last word as a prefix too, below a whole-word match', () => {
    expect(found('postg')).toEqual(expect.arrayContaining(['postgres-tools', 'db-helper']));
    expect(found('database postgres')).toEqual(['postgres-tools', 'db-helper']);
    expect(found('postgres database')).toEqual(['postgres-tools']);
    expect(found('no')).toEqual([]);
  });

  it('answers the best partial matches, flagged, when few listings match every word', () => {
    const result = matches(searcher, 'notion meetings');
    expect(result.partial).toBe(true);
    expect(result.docs.map((doc) => names[doc]).sort()).toEqual(['meeting-notes', 'notion-api']);
    expect(matches(searcher, 'notion').partial).toBe(false);
    expect(matches(searcher, 'notion meetings', 'any').partial).toBe(false);
  });

  it('scores a word in the name above the same word in the description', () => {
    const s = searcherOf([listing('helper', 'skills for everything'), listing('skills', 'helper for everything')]);
    const result = matches(s, 'skills');
    expect(result.docs).toEqual([1, 0]);
  });

  it('orders fields name > repo/author > tags > description', () => {
    const s = searcherOf([
      listing('alpha', 'zebra here', 'o/r'),
      listing('beta', 'nothing', 'o/r', ['zebra']),
      listing('gamma', 'nothing', 'zebra/r'),
      listing('zebra', 'nothing', 'o/r'),
    ]);
    expect(matches(s, 'zebra').docs).toEqual([3, 2, 1, 0]);
  });
});

describe('word pairs of descriptions', () => {
  const listings = [
    listing('requesting-code-review', 'Ask for a review'), // a name writes "code review" in parts
    listing('reviewer', 'Automated code review for pull requests'), // side by side
    listing('linter', 'Review the code for pull requests'), // apart, same length
    listing('init', 'Set up a project'), // "setup" is no name's join
    listing('setup-wizard', 'Creates projects'),
  ];
  const searcher = (withNames: boolean) => {
    const builder = new KeywordIndexBuilder();
    if (withNames) listings.forEach((l) => builder.addName(l.name));
    listings.forEach((l) => builder.add(l));
    return new KeywordSearcher(builder.finish());
  };
  const postings = (s: KeywordSearcher, term: string) => {
    const t = s.termId(term);
    const { offsets, docs, fields } = s.index;
    return t < 0 ? [] : Array.from(docs.subarray(offsets[t]!, offsets[t + 1]!), (doc, i) => [doc, fields[offsets[t]! + i]!]);
  };
  const DESCRIPTION_BIT = 1 << SEARCH_FIELDS.indexOf('description');

  it('indexes a pair joined, as a description term, when some name writes it in parts', () => {
    const s = searcher(true);
    expect(postings(s, 'codereview')).toEqual([
      [0, 1],
      [1, DESCRIPTION_BIT],
    ]);
    expect(postings(s, 'setup')).toEqual([[4, 1]]);
    expect(matches(s, 'codereview').docs).toEqual([0, 1]);
  });

  it('indexes no pair without the names', () => {
    expect(postings(searcher(false), 'codereview')).toEqual([[0, 1]]);
  });

  it('gives words side by side in a description the phrase bonus, so they rank above the same words apart', () => {
    const s = searcher(true);
    const query = s.resolve('code review');
    const found = s.match(query, () => true, 'all');
    expect(Array.from(found.docs.subarray(0, found.count)).sort()).toEqual([0, 1, 2]);
    expect(s.score[1]).toBe(s.score[2]);
    expect([s.phrases[1], s.phrases[2]]).toEqual([1, 0]);
    expect([s.phrasesOf(1, query.pairs), s.phrasesOf(2, query.pairs)]).toEqual([1, 0]);
    expect(relevanceScore(s.score[1]!, false, s.phrases[1]!, 0)).toBeGreaterThan(relevanceScore(s.score[2]!, false, s.phrases[2]!, 0));
  });

  it('takes the names before any listing', () => {
    const builder = new KeywordIndexBuilder();
    builder.add(listings[0]!);
    expect(() => builder.addName('late')).toThrow(/before/);
  });
});

describe('prefix expansion', () => {
  it('stands for the most frequent PREFIX_MAX_TERMS terms of a prefix, by frequency then term order', () => {
    // 100 distinct completions of "zed", completion i in i + 1 listings (so each has its own frequency), plus
    // ties among the rarest: the expansion must keep the 64 most frequent, as sorting them all would.
    const listings: SearchableListing[] = [];
    for (let i = 0; i < 100; i++) for (let k = 0; k <= Math.max(0, i - 30); k++) listings.push(listing(`zed${String(i).padStart(3, '0')}x tool`));
    listings.push(listing('zen garden'), listing('zed'));
    const s = searcherOf(listings);
    const { terms, offsets } = s.index;
    const df = (t: number) => offsets[t + 1]! - offsets[t]!;
    for (const prefix of ['zed', 'zed0', 'zed09', 'zen', 'ze', 'zzz', 'z']) {
      const all = [...terms].flatMap((term, t) => (term.startsWith(prefix) ? [t] : []));
      const expected = all.length <= PREFIX_MAX_TERMS ? all : [...all].sort((a, b) => df(b) - df(a) || a - b).slice(0, PREFIX_MAX_TERMS);
      expect(s.prefixTerms(prefix), prefix).toEqual(expected);
    }
    expect(s.prefixTerms('zed').length).toBe(PREFIX_MAX_TERMS);
  });
});

describe('resolved queries', () => {
  it('are remembered per text, equal to a fresh resolution, for the most recent RESOLVED_CACHE_SIZE texts', () => {
    const listings = [listing('postgres-mcp', 'query a postgres database'), listing('pdf tools', 'read pdf files'), listing('postgresql admin')];
    const s = searcherOf(listings);
    const fresh = searcherOf(listings);
    const first = s.resolve('postg database');
    expect(first).toEqual(fresh.resolve('postg database'));
    expect(s.resolve('postg database')).toBe(first);
    // The bound reached, a new text evicts the least recently used ('pdf 1'), not the first one remembered.
    const pdf1 = s.resolve('pdf 1');
    for (let i = 2; i < RESOLVED_CACHE_SIZE; i++) s.resolve(`pdf ${i}`);
    expect(s.resolve('postg database')).toBe(first);
    s.resolve('tools');
    expect(s.resolve('postg database')).toBe(first);
    expect(s.resolve('pdf 1')).not.toBe(pdf1);
    for (let i = 0; i < RESOLVED_CACHE_SIZE; i++) s.resolve(`tools ${i}`);
    const again = s.resolve('postg database');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // A remembered resolution answers as a fresh one does.
    expect(matches(s, 'postg database')).toEqual(matches(fresh, 'postg database'));
  });
});

describe('block maxima and the top of one word', () => {
  // 3,000 listings hold "widget"; a third also hold "widgets" (a prefix completion). Popularity falls with the
  // document number, as the build orders documents by installs, with a popular listing now and then further on.
  // Two unpopular listings late in the lists are named "widget": the ranking below gives an exact name a bonus
  // that outweighs any popularity, which no block bound holds (the searcher offers them first). Half the listings
  // also hold "gadget" and 300 are named "Gadget", more than NAMED_MAX: bounds then carry the bonus instead.
  const count = 3000;
  const popularity = Float32Array.from({ length: count }, (_, doc) => (doc % 500 === 499 ? 0.9 : 0.8 * (1 - doc / count)));
  const builder = new KeywordIndexBuilder();
  for (let doc = 0; doc < count; doc++) {
    const name = doc === 2300 || doc === 2990 ? 'Widget' : doc % 10 === 1 ? 'Gadget' : doc % 7 === 0 ? `widget-${doc}` : `tool-${doc}`;
    const description = `${doc % 3 === 0 ? 'widgets and ' : ''}${'a widget '.repeat(1 + (doc % 4))}${doc % 2 ? 'a gadget ' : ''}for case ${doc}`;
    builder.add(listing(name, description));
  }
  const index = builder.finish(popularity);
  const searcher = new KeywordSearcher(index);
  const keyOf = (relevance: number, doc: number) => Math.round(-relevance * 1000) * 2 ** 22 + doc;
  const rankingFor = (nameKey: number): WordRanking => ({
    key: (doc, impact) => keyOf(relevanceScore(impact, false, 0, popularity[doc]!) + (index.nameKeys[doc] === nameKey ? 100 : 0), doc),
    bound: (impact, prior, score, nameBonus) => keyOf(Math.min(relevanceScore(impact, false, 0, prior), score) + (nameBonus ? 100 : 0) + 1e-4, 0),
  });
  const { nameKey } = searcher.resolve('widget');
  const ranking = rankingFor(nameKey);
  /** Every posting of every term of the word scored, a listing counted at its best term. */
  const bruteForce = (q: string): number[] => {
    const word = searcher.resolve(q).words[0]!;
    const rank = rankingFor(searcher.resolve(q).nameKey);
    const best = new Map<number, number>();
    word.terms.forEach((term, i) => {
      for (let p = index.offsets[term]!; p < index.offsets[term + 1]!; p++) {
        const key = rank.key(index.docs[p]!, Math.fround(index.impacts[p]! * word.factors[i]!), Infinity, true);
        best.set(index.docs[p]!, Math.min(best.get(index.docs[p]!) ?? Infinity, key));
      }
    });
    return [...best].sort((a, b) => a[1] - b[1]).map(([doc]) => doc);
  };

  it('bound every posting of every block of every long list', () => {
    let blocks = 0;
    index.blockTerms.forEach((term, i) => {
      const start = index.offsets[term]!;
      const end = index.offsets[term + 1]!;
      expect(index.blockStarts[i + 1]! - index.blockStarts[i]!).toBe(Math.ceil((end - start) / BLOCK_SIZE));
      for (let p = start; p < end; p++) {
        const block = index.blockStarts[i]! + Math.floor((p - start) / BLOCK_SIZE);
        const prior = popularity[index.docs[p]!]!;
        expect(index.blockImpacts[block]).toBeGreaterThanOrEqual(index.impacts[p]!);
        expect(index.blockPopularity[block]).toBeGreaterThanOrEqual(prior);
        expect(index.blockScores[block]! + 1e-4).toBeGreaterThanOrEqual(relevanceScore(index.impacts[p]!, false, 0, prior));
        blocks++;
      }
    });
    expect(blocks).toBeGreaterThan(count);
    // Short lists have no blocks: every listing's own number is a term shorter than a block.
    expect(index.blockTerms.length).toBeLessThan(10);
  });

  it('keeps the k best matches of a word and its completions, each once, reading only the blocks that can reach them', () => {
    const word = searcher.resolve('widget').words[0]!;
    expect(word.terms.length).toBeGreaterThan(1);
    const expected = bruteForce('widget');
    const odd = (doc: number) => doc % 2 === 1;
    expect(expected.slice(0, 2)).toEqual([2300, 2990]);
    for (const k of [1, 10, 21, 200]) {
      expect(
        searcher.topOfWord(word, nameKey, () => true, k, ranking),
        `k=${k}`,
      ).toEqual(expected.slice(0, k));
      expect(searcher.scored, `k=${k}`).toBeLessThan(word.cost);
      expect(searcher.topOfWord(word, nameKey, odd, k, ranking), `odd, k=${k}`).toEqual(expected.filter(odd).slice(0, k));
    }
    // A first page reads a small share of the lists.
    searcher.topOfWord(word, nameKey, () => true, 21, ranking);
    expect(searcher.scored).toBeLessThan(word.cost / 3);
    expect(searcher.countWord(word, odd)).toBe(expected.filter(odd).length);
  });

  it('carries the exact-name bonus in its bounds when more than NAMED_MAX listings have the name', () => {
    const { words, nameKey: gadget } = searcher.resolve('gadget');
    const expected = bruteForce('gadget');
    expect(Array.from(index.nameKeys).filter((key) => key === gadget).length).toBeGreaterThan(NAMED_MAX);
    for (const k of [1, 21, 400]) {
      expect(
        searcher.topOfWord(words[0]!, gadget, () => true, k, rankingFor(gadget)),
        `k=${k}`,
      ).toEqual(expected.slice(0, k));
    }
    searcher.topOfWord(words[0]!, gadget, () => true, 21, rankingFor(gadget));
    expect(searcher.scored).toBeLessThan(words[0]!.cost / 2);
  });
});
