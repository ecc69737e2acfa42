// Guarantees /llms.txt follows llmstxt.org (title, summary, sections of links), states the snapshot's last update
// exactly as /api/v1/meta does, maps the API, agent endpoints, discovery files, docs, type and category pages, and
// lists the same top listings the API ranks; and that /llms-full.txt adds every docs page and every comparison
// shortlist, each equal to the API's answer for that type and category.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLMS_FULL_SECTIONS, LLMS_SECTIONS, LLMS_TOP_PER_TYPE } from '../../build/stages/discovery/llms.ts';
import { loadDocs } from '../../src/docs/index.ts';
import { BRAND, DISCLAIMER, TAGLINE } from '../../src/domain/brand.ts';
import { LISTING_TYPES, RANKING_METRIC, TYPE_LABELS } from '../../src/domain/listing/listing-types.ts';
import { SHORTLIST } from '../../src/domain/listing/shortlists.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { twoPerRepository } from '../support/top-lists.ts';

let server: TestServer;
let llms: string;
let full: string;
beforeAll(async () => {
  server = await startInProcess();
  llms = await (await server.fetch('/llms.txt')).text();
  full = await (await server.fetch('/llms-full.txt')).text();
});
afterAll(() => server.close());

interface ApiListing {
  id: string;
  archived?: string;
  slug: string;
  url: string;
  repo: string;
}
const listings = async (query: string) => (await json<{ items: ApiListing[] }>(await server.fetch(`/api/v1/listings?${query}`))).items;

/** Headings of a Markdown text: [line index, level, title], ignoring fenced code (a shell comment is no heading). */
function headings(lines: string[]): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = !fenced && /^(#{1,6}) (.*)$/.exec(line);
    if (match) out.push([i, match[1]!.length, match[2]!]);
  });
  return out;
}

/** The lines of an H2 (or, with `level`, deeper) section, up to the next heading of the same or a higher level. */
function section(text: string, title: string, level = 2): string[] {
  const lines = text.split('\n');
  const all = headings(lines);
  const at = all.findIndex(([, l, t]) => l === level && t === title);
  expect(at, `section ${title}`).toBeGreaterThanOrEqual(0);
  const next = all.slice(at + 1).find(([, l]) => l <= level);
  return lines.slice(all[at]![0] + 1, next?.[0]);
}
const linksIn = (lines: string[]) => lines.flatMap((line) => [...line.matchAll(/\]\((http[^)\s]+)\)/g)].map((m) => m[1]!));

describe('/llms.txt', () => {
  it('opens with the title, the one-line summary and the independence disclaimer', () => {
    const lines = llms.split('\n');
    expect(lines[0]).toBe(`# ${BRAND}`);
    expect(lines[2]).toBe(`> ${TAGLINE}`);
    expect(llms).toContain(DISCLAIMER);
  });

  it('states the last update of the snapshot, the same instant /api/v1/meta reports', async () => {
    const meta = await json<{ lastUpdated: string }>(await server.fetch('/api/v1/meta'));
    const stated = /^- Last updated: (\S+)/m.exec(llms)?.[1];
    expect(stated).toBe(meta.lastUpdated);
  });

  it('has its sections in order, each a list of links', () => {
    expect(
      headings(llms.split('\n'))
        .filter(([, level]) => level === 2)
        .map(([, , title]) => title),
    ).toEqual([...LLMS_SECTIONS]);
    for (const title of LLMS_SECTIONS) expect(linksIn(section(llms, title)).length, title).toBeGreaterThan(0);
  });

  it.each([
    ['API', ['/docs/api/', '/openapi.json', '/openapi.yaml', '/api/v1/listings?', '/api/v1/meta', '/api/v1/catalog/stats', '/shards/manifest.json']],
    [
      'Agents',
      [
        '/.well-known/mcp',
        '/.well-known/mcp/server-card.json',
        '/mcp.json',
        '/.well-known/mcp/docs',
        '/.well-known/agent-card.json',
        '/a2a/v1',
        '/ask?',
        '/skills/catalog/SKILL.md',
      ],
    ],
    [
      'Discovery files',
      ['/.well-known/api-catalog', '/.well-known/ai-catalog.json', '/sitemap.xml', '/feeds/listings.json', '/llms-full.txt', '/pricing.md', '/auth.md'],
    ],
  ])('section %s links %j', (title, paths) => {
    const links = linksIn(section(llms, title)).map((url) => url.slice(TEST_BASE_URL.length));
    for (const path of paths)
      expect(
        links.some((link) => link === path || (path.endsWith('?') && link.startsWith(path))),
        path,
      ).toBe(true);
  });

  it('links every docs page, every type page and every category page', async () => {
    const links = new Set(linksIn(llms.split('\n')));
    for (const doc of loadDocs()) expect(links).toContain(TEST_BASE_URL + SITE_PATHS.doc(doc.slug));
    for (const type of LISTING_TYPES) expect(links).toContain(TEST_BASE_URL + SITE_PATHS.type(type));
    const categories = await json<Array<{ type: (typeof LISTING_TYPES)[number]; name: string; count: number }>>(await server.fetch('/api/v1/categories'));
    for (const c of categories) {
      expect(links).toContain(TEST_BASE_URL + SITE_PATHS.category(c.type, c.name));
      if (c.count >= SHORTLIST.minListings) expect(links).toContain(TEST_BASE_URL + SITE_PATHS.compare(c.type, c.name));
      else expect(links).not.toContain(TEST_BASE_URL + SITE_PATHS.compare(c.type, c.name));
    }
  });

  it.each(LISTING_TYPES)('lists the top %s listings the API ranks first, with each figure labelled', async (type) => {
    const metric = RANKING_METRIC[type];
    const lines = section(llms, `${TYPE_LABELS[type].plural}, by ${metric}`, 3).filter((line) => line.startsWith('- '));
    const api = twoPerRepository((await listings(`type=${type}&sort=${metric}&limit=200`)).filter((l) => !l.archived)).slice(0, LLMS_TOP_PER_TYPE);
    expect(lines.map((line) => /id `([^`]+)`\)$/.exec(line)?.[1])).toEqual(api.map((l) => l.id));
    expect(lines.map((line) => /\]\(([^)]+)\)/.exec(line)?.[1])).toEqual(api.map((l) => l.url));
    for (const line of lines) expect(line).toMatch(new RegExp(`\\([\\d,]+ ${metric} \\((real|synthetic)\\); id`));
  });
});

describe('/llms-full.txt', () => {
  it('is llms.txt followed by its own sections', () => {
    expect(full.startsWith(llms.trimEnd())).toBe(true);
    const added = headings(full.slice(llms.trimEnd().length).split('\n')).filter(([, level]) => level === 2);
    expect(added.map(([, , title]) => title)).toEqual([...LLMS_FULL_SECTIONS]);
  });

  it('carries every docs page, the ranking and methodology prose included, with absolute links', () => {
    const docs = section(full, 'Documentation').join('\n');
    for (const doc of loadDocs()) {
      expect(docs).toContain(`### ${doc.title}`);
      // Each paragraph of the page is there (links made absolute, headings moved under the section).
      const firstParagraph = doc.body
        .split('\n\n')
        .find((p) => !p.startsWith('#'))!
        .replace(/\]\(\//g, `](${TEST_BASE_URL}/`);
      expect(docs).toContain(firstParagraph);
    }
    expect(docs).toContain('metricsSource');
    expect(docs).not.toMatch(/\]\(\/[^/]/);
  });

  it('has a comparison table for every (type, category) with enough listings, equal to the API shortlist', async () => {
    const categories = await json<Array<{ type: (typeof LISTING_TYPES)[number]; name: string; label: string; count: number }>>(
      await server.fetch('/api/v1/categories'),
    );
    const eligible = categories.filter((c) => c.count >= SHORTLIST.minListings);
    expect(eligible.length).toBeGreaterThan(10);
    const shortlists = section(full, 'Comparison shortlists');
    const tables = new Map<string, string[]>();
    let current: string | undefined;
    for (const line of shortlists) {
      if (line.startsWith('#### ')) current = line.slice(5);
      else if (current && /^\| \d+ \|/.test(line)) tables.set(current, [...(tables.get(current) ?? []), line]);
    }
    expect(tables.size).toBe(eligible.length);
    for (let i = 0; i < eligible.length; i += 16) {
      await Promise.all(
        eligible.slice(i, i + 16).map(async (c) => {
          const rows = tables.get(`${TYPE_LABELS[c.type].plural}: ${c.label}`);
          expect(rows, `${c.type}/${c.name}`).toBeDefined();
          const api = twoPerRepository(
            (await listings(`type=${c.type}&category=${c.name}&sort=${RANKING_METRIC[c.type]}&limit=200`)).filter((l) => !l.archived),
          ).slice(0, SHORTLIST.size);
          expect(
            rows!.map((row) => /\]\(([^)]+)\)/.exec(row)?.[1]),
            `${c.type}/${c.name}`,
          ).toEqual(api.map((l) => l.url));
          // Installs and stars side by side, each saying whether it is real.
          for (const row of rows!) expect(row).toMatch(/\| [\d,]+ \((real|synthetic)\) \| [\d,]+ \((real|synthetic)\) \|/);
        }),
      );
    }
  });
});
