// Guarantees the installs source reads counts from a JSON file, a CSV file and the skills.sh leaderboard API
// (1-based pages, key optional, tolerant of the shapes it has had), skips bad records with a warning each, and on
// any failure returns an error and no counts, so the caller keeps the previous ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchInstalls, parseCsv } from '../../build/collect/sources/installs.ts';
import { InstallsSourceSchema } from '../../build/collect/sources-file.ts';
import type { SourceContext } from '../../build/collect/types.ts';
import { sequence, startScriptServer, type Script, type ScriptServer } from './support/script-server.ts';

const root = mkdtempSync(join(tmpdir(), 'catalog-installs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TUNING = { minDelayMs: 1, maxDelayMs: 4, maxWaitMs: 500, timeoutMs: 10_000 };
const context = (env: Record<string, string> = {}): SourceContext => ({ stateDir: root, now: new Date('2026-11-27T06:00:00Z'), log: () => {}, env });
const entryFor = (url: string, extra: Record<string, unknown> = {}) => InstallsSourceSchema.parse({ kind: 'installs', url, retries: 1, ...extra });
const file = (name: string, text: string) => {
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
};
const count = (repo: string, skill: string, installs: number, source: string) => ({ repo, skill, installs, asOf: '2026-11-27', source });

describe('files', () => {
  it('reads a JSON array, with the key names the sources use', async () => {
    const path = file(
      'installs.json',
      JSON.stringify([
        { repo: 'anthropics/skills', skill: 'pdf', installs: 1200 },
        { source: 'vercel-labs/agent-skills', name: 'react-best-practices', installs: '350' },
        { source: 'https://github.com/Obra/Superpowers', skillId: 'brainstorming', installCount: 90 },
        { repo: 'not a repo', skill: 'x', installs: 1 },
        { repo: 'a/b', skill: 'y', installs: -3 },
      ]),
    );
    const result = await fetchInstalls(entryFor(path), context());
    expect(result.error).toBeUndefined();
    expect(result.counts).toEqual([
      count('Obra/Superpowers', 'brainstorming', 90, 'installs.json'),
      count('anthropics/skills', 'pdf', 1200, 'installs.json'),
      count('vercel-labs/agent-skills', 'react-best-practices', 350, 'installs.json'),
    ]);
    expect(result.stats.warnings.map((w) => w.message)).toEqual(['no owner/repo (repo or source); skipped', 'installs -3 is not a count; skipped']);
  });

  it('reads an object holding the list, under a source id when the entry has one', async () => {
    const path = file('wrapped.json', JSON.stringify({ skills: [{ repo: 'a/b', skill: 's', installs: 5 }], total: 1 }));
    const result = await fetchInstalls(entryFor(path, { id: 'export-2026-11' }), context());
    expect(result.counts).toEqual([count('a/b', 's', 5, 'export-2026-11')]);
    // The id the sources file settles on when none is given is not a short name: the file's name is used.
    const settled = await fetchInstalls(entryFor(path, { id: `installs:${path}` }), context());
    expect(settled.counts[0]!.source).toBe('wrapped.json');
  });

  it('reads a CSV with a header, quoted fields and CRLF', async () => {
    const path = file(
      'installs.csv',
      '\uFEFFSource,Skill,Installs,Note\r\nanthropics/skills,pdf,1200,"plain"\r\n"anthropics/skills","docx",800,"a ""quoted"", note"\r\nbad,row,x,\r\n',
    );
    const result = await fetchInstalls(entryFor(path), context());
    expect(result.counts).toEqual([count('anthropics/skills', 'docx', 800, 'installs.csv'), count('anthropics/skills', 'pdf', 1200, 'installs.csv')]);
    expect(result.stats.warnings).toEqual([{ where: `${path}:4`, message: 'no owner/repo (repo or source); skipped' }]);
    expect(parseCsv('a,"b\nc",d\n')).toEqual([['a', 'b\nc', 'd']]);
  });

  it.each([
    ['a missing file', 'absent.json', undefined, /^cannot read .*absent\.json: ENOENT$/],
    ['JSON that is not', 'broken.json', '{"skills": [', /not JSON$/],
    ['JSON of another shape', 'other.json', '{"hello": 1}', /no list of records/],
    ['an empty CSV', 'empty.csv', '', /empty CSV$/],
  ])('returns an error and no counts for %s', async (_name, name, text, error) => {
    const path = text === undefined ? join(root, name) : file(name, text);
    const result = await fetchInstalls(entryFor(path), context());
    expect(result.counts).toEqual([]);
    expect(result.error).toMatch(error);
  });
});

describe('the skills.sh API', () => {
  const leaderboard =
    (pages: unknown[][], extra: (page: number) => Record<string, unknown>): Script =>
    (request) => {
      const url = new URL(request.url, 'http://x');
      if (url.pathname !== '/api/v1/skills' || url.searchParams.get('view') !== 'all-time') return { status: 404, body: { error: 'not_found' } };
      const page = Number(url.searchParams.get('page'));
      return { body: { skills: pages[page - 1] ?? [], ...extra(page) } };
    };
  const pages = [
    [
      { source: 'anthropics/skills', name: 'pdf', installs: 1200 },
      { source: 'anthropics/skills', skillId: 'docx', installs: 800 },
    ],
    [{ repo: 'obra/superpowers', name: 'brainstorming', installs: 90 }],
  ];

  it('reads pages from 1 while hasMore, with the key as a bearer token', async () => {
    server = await startScriptServer(leaderboard(pages, (page) => ({ page, hasMore: page < 2 })));
    const result = await fetchInstalls(entryFor(`${server.origin}/api/v1`), context({ SKILLS_API_KEY: 'sk_test' }), TUNING);
    expect(result.error).toBeUndefined();
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/skills?view=all-time&page=1', '/api/v1/skills?view=all-time&page=2']);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk_test', 'Bearer sk_test']);
    expect(result.counts).toEqual([
      count('anthropics/skills', 'docx', 800, '127.0.0.1'),
      count('anthropics/skills', 'pdf', 1200, '127.0.0.1'),
      count('obra/superpowers', 'brainstorming', 90, '127.0.0.1'),
    ]);
    expect(result.stats.requests).toBe(2);
  });

  it.each([
    ['total', (page: number) => ({ page, total: 3 }), 2],
    ['totalPages under pagination', (page: number) => ({ pagination: { page, totalPages: 2 } }), 2],
    ['nothing: until an empty page', () => ({}), 3],
  ])('knows the last page from %s', async (_name, extra, requests) => {
    server = await startScriptServer(leaderboard(pages, extra));
    const result = await fetchInstalls(entryFor(`${server.origin}/api/v1/skills`), context(), TUNING);
    expect(result.counts).toHaveLength(3);
    expect(server.requests).toHaveLength(requests);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('stops on a page that repeats the one before (an API ignoring `page`)', async () => {
    server = await startScriptServer(() => ({ body: { skills: pages[0] } }));
    const result = await fetchInstalls(entryFor(`${server.origin}/api/v1`), context(), TUNING);
    expect(result.counts).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
    expect(result.stats.warnings[0]!.message).toMatch(/same records/);
  });

  it.each([
    ['a 401', sequence([{ status: 401, body: { error: 'unauthorized', message: 'API key required' } }]), /^page 1: .* answered 401 \(set SKILLS_API_KEY/],
    ['persistent 500s', sequence([{ status: 500 }]), /^page 1: .*answered 500 \(after 2 attempts\)/],
    [
      'a failure on a later page',
      (request) => (request.url.endsWith('page=1') ? { body: { skills: pages[0], hasMore: true } } : { hang: true }),
      /^page 2: .*no complete answer/,
      300,
    ],
    ['truncated JSON', sequence([{ body: '{"skills": [{"source": "a/b", "na' }]), /^page 1: .*not a page of skills/],
    ['a long rate limit', sequence([{ status: 429, headers: { 'retry-after': '3600' } }]), /^page 1: .*rate limited \(429\)/],
  ] as Array<[string, Script, RegExp, number?]>)('returns an error and no counts on %s', async (_name, script, error, timeoutMs = TUNING.timeoutMs) => {
    server = await startScriptServer(script);
    const result = await fetchInstalls(entryFor(`${server.origin}/api/v1`), context(), { ...TUNING, timeoutMs });
    expect(result.counts).toEqual([]);
    expect(result.error).toMatch(error);
  });
});
