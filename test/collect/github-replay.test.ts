// Guarantees the github source against a local GitHub replaying recorded answers: REST 200 then 304 on the
// ETag (counted as not modified, figures kept, date moved), a 403 secondary limit waited out, a spent primary
// limit that stops the run cleanly with what it has, 404 as missing, a renamed repository's new full name, a
// request budget; GraphQL batches with a partial NOT_FOUND and a rate limit in a 200 body; and the request count
// for every repository of the embedded snapshot: ceil(N / batch) GraphQL queries.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { batchQuery, fetchGithubMetadata, UNREACHABLE_AFTER } from '../../build/collect/sources/github.ts';
import { GithubSourceSchema } from '../../build/collect/sources-file.ts';
import type { RepoMeta, SourceContext } from '../../build/collect/types.ts';
import { snapshotRecords } from '../support/fixtures.ts';
import { RECORDED_RESET, startGithubReplay, startSyntheticGithub } from './support/github-replay.ts';
import type { ScriptServer } from './support/script-server.ts';

const root = mkdtempSync(join(tmpdir(), 'catalog-github-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The recordings' clock: one hour before their x-ratelimit-reset. */
const RECORDED_NOW = RECORDED_RESET * 1000 - 3_600_000;
const TUNING = { minDelayMs: 1, maxDelayMs: 4, maxWaitMs: 2000, timeoutMs: 10_000, clock: () => RECORDED_NOW };
const context = (env: Record<string, string> = {}, stateDir = mkdtempSync(join(root, 'state-')), day = '2026-11-27'): SourceContext => ({
  stateDir,
  now: new Date(`${day}T06:00:00Z`),
  log: () => {},
  env,
});
const entryFor = (url: string, extra: Record<string, unknown> = {}) => GithubSourceSchema.parse({ kind: 'github', url, concurrency: 1, retries: 1, ...extra });
const SKILLS: Omit<RepoMeta, 'asOf'> = {
  repo: 'anthropics/skills',
  fullName: 'anthropics/skills',
  stars: 41280,
  archived: false,
  pushedAt: '2026-11-25T09:41:03Z',
  license: 'Apache-2.0',
};

describe('REST, without a token', () => {
  it('reads a repository, then confirms it with a 304 on its ETag: figures kept, date moved', async () => {
    server = await startGithubReplay({
      'GET /repos/anthropics/skills': ['rest-anthropics-skills.200', 'rest-anthropics-skills.304', 'rest-anthropics-skills.304'],
    });
    const entry = entryFor(server.origin);
    const first = await fetchGithubMetadata(['anthropics/skills'], entry, context({}, join(root, 'etag')), new Map(), TUNING);
    expect(first.meta.get('anthropics/skills')).toEqual({ ...SKILLS, asOf: '2026-11-27' });
    expect(first.stats).toMatchObject({ requests: 1, notModified: 0 });
    expect(first.stoppedEarly).toBeUndefined();
    const sent = server.requests[0]!.headers;
    expect(sent['x-github-api-version']).toBe('2022-11-28');
    expect(sent.accept).toBe('application/vnd.github+json');
    expect(sent.authorization).toBeUndefined();
    expect(sent['if-none-match']).toBeUndefined();

    const second = await fetchGithubMetadata(['anthropics/skills'], entry, context({}, join(root, 'etag'), '2026-11-28'), first.meta, TUNING);
    expect(server.requests[1]!.headers['if-none-match']).toBe(
      JSON.parse(readFileSync(join(root, 'etag', 'github-etags.json'), 'utf8'))['anthropics/skills'].etag,
    );
    expect(second.stats).toMatchObject({ requests: 1, notModified: 1 });
    expect(second.meta.get('anthropics/skills')).toEqual({ ...SKILLS, asOf: '2026-11-28' });

    // Without the caller's previous figures, the ones kept beside the ETag answer the 304.
    const third = await fetchGithubMetadata(['anthropics/skills'], entry, context({}, join(root, 'etag'), '2026-11-29'), new Map(), TUNING);
    expect(third.stats.notModified).toBe(1);
    expect(third.meta.get('anthropics/skills')).toEqual({ ...SKILLS, asOf: '2026-11-29' });
  });

  it('sends the token and waits out a 403 secondary limit with retry-after', async () => {
    server = await startGithubReplay({ 'GET /repos/anthropics/skills': ['rest-secondary-limit.403', 'rest-anthropics-skills.200'] });
    const result = await fetchGithubMetadata(
      ['anthropics/skills'],
      entryFor(server.origin, { mode: 'rest' }),
      context({ GITHUB_TOKEN: 'ghp_test' }),
      new Map(),
      TUNING,
    );
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer ghp_test', 'Bearer ghp_test']);
    expect(result.stats).toMatchObject({ requests: 2, rateLimitWaits: 1 });
    expect(result.meta.get('anthropics/skills')).toEqual({ ...SKILLS, asOf: '2026-11-27' });
  });

  it('stops cleanly on a spent primary limit, with what it has, and asks nothing more', async () => {
    server = await startGithubReplay({
      'GET /repos/anthropics/skills': ['rest-anthropics-skills.200'],
      'GET /repos/acme/second': ['rest-primary-limit.403'],
      'GET /repos/acme/third': ['rest-anthropics-skills.200'],
    });
    const started = Date.now();
    const result = await fetchGithubMetadata(['anthropics/skills', 'acme/second', 'acme/third'], entryFor(server.origin), context(), new Map(), TUNING);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.stats.rateLimitWaits).toBe(0);
    expect([...result.meta.keys()]).toEqual(['anthropics/skills']);
    expect(result.stoppedEarly).toMatch(
      /rate limited \(403\), asked to wait 3601 s, longer than the 2 s allowed; 2 repositories left at their last known figures/,
    );
    expect(server.requests.map((r) => r.url)).toEqual(['/repos/anthropics/skills', '/repos/acme/second']);
  });

  it('stops before a request the window has no room for (200 with remaining 0)', async () => {
    server = await startGithubReplay({ 'GET /repos/anthropics/skills': ['rest-last-request.200'], 'GET /repos/acme/next': ['rest-anthropics-skills.200'] });
    const result = await fetchGithubMetadata(['anthropics/skills', 'acme/next'], entryFor(server.origin), context(), new Map(), TUNING);
    expect(result.meta.size).toBe(1);
    expect(result.stoppedEarly).toMatch(/^rate limit used up; it resets in 61 min/);
    expect(server.requests).toHaveLength(1);
  });

  it('marks a 404 missing and keeps its last known figures', async () => {
    server = await startGithubReplay({ 'GET /repos/ghost-owner/deleted-repo': ['rest-not-found.404'] });
    // The caller's figures may be keyed in another case than the repository is asked in.
    const last = { repo: 'ghost-owner/deleted-repo', fullName: 'ghost-owner/deleted-repo', stars: 77, archived: false, asOf: '2026-11-01' };
    const result = await fetchGithubMetadata(
      ['ghost-owner/deleted-repo'],
      entryFor(server.origin),
      context(),
      new Map([['Ghost-Owner/Deleted-Repo', last]]),
      TUNING,
    );
    expect(result.meta.get('ghost-owner/deleted-repo')).toEqual({ ...last, missing: true });
  });

  it('follows a renamed repository and reports its new full name', async () => {
    server = await startGithubReplay({ 'GET /repos/old-owner/old-name': ['rest-renamed.301'], 'GET /repositories/123456789': ['rest-renamed-target.200'] });
    const result = await fetchGithubMetadata(['old-owner/old-name'], entryFor(server.origin), context(), new Map(), TUNING);
    expect(result.meta.get('old-owner/old-name')).toEqual({
      repo: 'old-owner/old-name',
      fullName: 'new-owner/new-name',
      stars: 812,
      archived: true,
      pushedAt: '2025-03-01T10:00:00Z',
      asOf: '2026-11-27',
    });
    expect(result.stats.requests).toBe(2);
  });

  it('spends at most its budget, then stops cleanly', async () => {
    server = await startSyntheticGithub();
    const repos = ['a/one', 'a/two', 'a/three', 'a/four', 'a/five'];
    const result = await fetchGithubMetadata(repos, entryFor(server.origin, { budget: 2, concurrency: 2 }), context(), new Map(), TUNING);
    expect(server.requests).toHaveLength(2);
    expect(result.meta.size).toBe(2);
    expect(result.stoppedEarly).toBe('the request budget (2) is spent; 3 repositories left at their last known figures');
  });
});

describe('GraphQL, with a token', () => {
  it('asks for a batch in one query, and reads a partial NOT_FOUND as missing', async () => {
    server = await startGithubReplay({ 'POST /graphql': ['graphql-partial.200'] });
    const result = await fetchGithubMetadata(
      ['anthropics/skills', 'ghost-owner/deleted-repo'],
      entryFor(server.origin),
      context({ GITHUB_TOKEN: 'ghp_test' }),
      new Map(),
      TUNING,
    );
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer ghp_test');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ query: batchQuery(['anthropics/skills', 'ghost-owner/deleted-repo']) });
    expect(result.meta.get('anthropics/skills')).toEqual({ ...SKILLS, asOf: '2026-11-27' });
    expect(result.meta.get('ghost-owner/deleted-repo')).toMatchObject({ missing: true, stars: 0 });
    expect(result.stats).toMatchObject({ requests: 1, warnings: [] });
  });

  it('stops on a rate limit in a 200 body when the reset is far, and waits for it when it is near', async () => {
    server = await startGithubReplay({ 'POST /graphql': ['graphql-rate-limited.200', 'graphql-partial.200'] });
    const entry = entryFor(server.origin);
    const far = await fetchGithubMetadata(['anthropics/skills'], entry, context({ GITHUB_TOKEN: 't' }), new Map(), TUNING);
    expect(far.meta.size).toBe(0);
    expect(far.stoppedEarly).toMatch(/^GraphQL rate limit: API rate limit already exceeded/);
    await server.close();

    server = await startGithubReplay({ 'POST /graphql': ['graphql-rate-limited.200', 'graphql-partial.200'] });
    const near = await fetchGithubMetadata(['anthropics/skills'], entryFor(server.origin), context({ GITHUB_TOKEN: 't' }), new Map(), {
      ...TUNING,
      clock: () => RECORDED_RESET * 1000 - 200,
    });
    expect(near.stats).toMatchObject({ requests: 2, rateLimitWaits: 1 });
    expect(near.meta.get('anthropics/skills')?.stars).toBe(41280);
  });

  it('costs ceil(N / batch) requests', async () => {
    server = await startSyntheticGithub(new Set(['a/r4']));
    const repos = Array.from({ length: 7 }, (_, i) => `a/r${i}`);
    const result = await fetchGithubMetadata(repos, entryFor(server.origin, { batch: 3, concurrency: 2 }), context({ GITHUB_TOKEN: 't' }), new Map(), TUNING);
    expect(result.stats.requests).toBe(3);
    expect(result.meta.size).toBe(7);
    expect(result.meta.get('a/r4')?.missing).toBe(true);
    expect(result.meta.get('a/r6')?.fullName).toBe('a/r6');
  });

  it('reads every repository of the embedded snapshot in ceil(N / 100) queries, well within 5,000 an hour', async () => {
    const repos = [...new Set(snapshotRecords().map((r) => r.repo))];
    server = await startSyntheticGithub();
    const result = await fetchGithubMetadata(repos, entryFor(server.origin, { batch: 100, concurrency: 4 }), context({ GITHUB_TOKEN: 't' }), new Map(), TUNING);
    expect(result.stoppedEarly).toBeUndefined();
    expect(result.meta.size).toBe(repos.length);
    expect(result.stats.requests).toBe(Math.ceil(repos.length / 100));
    expect(result.stats.requests).toBeLessThan(5000);
  });
});

describe('GitHub unreachable', () => {
  it.each(['rest', 'graphql'] as const)('stops over %s after a few network failures in a row instead of trying every repository', async (mode) => {
    const repos = Array.from({ length: 40 }, (_, i) => `acme/repo-${i}`);
    const last = new Map([['acme/repo-7', { ...SKILLS, repo: 'acme/repo-7', fullName: 'acme/repo-7', asOf: '2026-11-20' }]]);
    // Port 9 (discard) on loopback: nothing listens, every request is refused at once.
    const result = await fetchGithubMetadata(
      repos,
      entryFor('http://127.0.0.1:9', { mode, batch: 5, retries: 0 }),
      context({ GITHUB_TOKEN: 'token' }),
      last,
      TUNING,
    );
    expect(result.stoppedEarly).toMatch(/unreachable/);
    expect(result.stats.requests).toBeLessThanOrEqual(UNREACHABLE_AFTER);
    // What it could not read is not answered: the collector keeps the last known figures (state) for it.
    expect(result.stoppedEarly).toMatch(/left at their last known figures/);
    expect(result.meta.has('acme/repo-7')).toBe(false);
  });
});
