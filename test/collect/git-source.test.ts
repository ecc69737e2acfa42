// Guarantees the git source reads a repository at a commit: local working and bare repositories, a remote URL
// cloned once (file:// here) and fetched after; refs as branch, tag, full or 12-hex short commit; each listing
// dated by the last and the first commit that touched its file; a rename and a removal seen at the newer commit; and a failure
// (unknown ref, no repository, a clone or tree over its bound) reported as status `failed` with a clear
// message, never thrown, the clone removed.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBoundsSchema } from '../../build/collect/sources-file.ts';
import { collectGitSource } from '../../build/collect/sources/git.ts';
import { byPath, collect, FixtureRepo, skillMd } from './support/git-fixture.ts';

let fixture: FixtureRepo;
let first: string;
let second: string;

const skill = (name: string, description = `The ${name} skill.`) => skillMd({ name, description });

beforeAll(() => {
  fixture = new FixtureRepo();
  fixture.write({
    'skills/alpha/SKILL.md': skill('alpha'),
    'skills/beta/SKILL.md': skill('beta'),
    'skills/gamma/SKILL.md': skill('gamma'),
    'skills/gamma/notes.md': 'notes',
  });
  first = fixture.commit('first');
  fixture.git('tag', 'v1');
  // The second commit renames beta's folder, removes gamma, edits alpha and leaves nothing else touched.
  fixture.move('skills/beta', 'skills/beta-renamed');
  fixture.remove('skills/gamma');
  fixture.write({ 'skills/alpha/SKILL.md': skill('alpha', 'Alpha, edited.') });
  second = fixture.commit('second');
});
afterAll(() => fixture.cleanup());

describe('a repository read at a commit', () => {
  it('dates each skill by the first commit of its file too (an original predates its copies)', async () => {
    const skills = byPath(await collect(fixture), 'skill');
    expect(skills.get('skills/alpha/SKILL.md')).toMatchObject({ firstCommitAt: '2026-01-01T12:00:00Z', updatedAt: '2026-01-02T12:00:00Z' });
    // Renamed (a publisher reorganising its folders): the first commit is the one that added the file, before the move.
    expect(skills.get('skills/beta-renamed/SKILL.md')).toMatchObject({ firstCommitAt: '2026-01-01T12:00:00Z', updatedAt: '2026-01-02T12:00:00Z' });
    const older = byPath(await collect(fixture, { ref: 'v1' }), 'skill');
    expect(older.get('skills/alpha/SKILL.md')).toMatchObject({ firstCommitAt: '2026-01-01T12:00:00Z', updatedAt: '2026-01-01T12:00:00Z' });
  });

  it('reads the default branch, dating each skill by the last commit touching its SKILL.md', async () => {
    const result = await collect(fixture);
    expect(result).toMatchObject({ status: 'ok', commit: second.slice(0, 12), absenceIsRemoval: true, removed: [] });
    expect(result.stats.requests).toBe(0);
    const skills = byPath(result, 'skill');
    expect([...skills.keys()]).toEqual(['skills/alpha/SKILL.md', 'skills/beta-renamed/SKILL.md']);
    expect(skills.get('skills/alpha/SKILL.md')).toMatchObject({
      repo: 'acme/tools',
      commit: second.slice(0, 12),
      description: 'Alpha, edited.',
      updatedAt: '2026-01-02T12:00:00Z',
    });
    // A rename is a commit touching the new path.
    expect(skills.get('skills/beta-renamed/SKILL.md')).toMatchObject({ name: 'beta', updatedAt: '2026-01-02T12:00:00Z' });
  });

  it.each([
    { ref: 'v1', what: 'a tag' },
    { ref: 'FULL', what: 'a full commit' },
    { ref: 'SHORT', what: 'a 12-hex short commit' },
  ])('reads the older commit named by $what, with what it held then', async ({ ref }) => {
    const named = ref === 'FULL' ? first : ref === 'SHORT' ? first.slice(0, 12) : ref;
    const result = await collect(fixture, { ref: named });
    expect(result.commit).toBe(first.slice(0, 12));
    const skills = byPath(result, 'skill');
    expect([...skills.keys()]).toEqual(['skills/alpha/SKILL.md', 'skills/beta/SKILL.md', 'skills/gamma/SKILL.md']);
    expect(skills.get('skills/alpha/SKILL.md')).toMatchObject({ description: 'The alpha skill.', updatedAt: '2026-01-01T12:00:00Z' });
    expect(skills.get('skills/gamma/SKILL.md')!.files!.map((file) => file.path)).toEqual(['SKILL.md', 'notes.md']);
  });

  it('reads a bare repository and a branch by name', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'catalog-git-bare-'));
    try {
      fixture.git('clone', '--quiet', '--bare', fixture.dir, bare);
      const result = await collect(undefined, { url: bare, ref: 'main' });
      expect(result).toMatchObject({ status: 'ok', commit: second.slice(0, 12) });
      expect(result.candidates).toHaveLength(2);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it.each([
    { case: 'a ref that does not exist', url: () => fixture.dir, ref: 'no-such-branch', error: /ref no-such-branch not found in / },
    { case: 'a commit that does not exist', url: () => fixture.dir, ref: 'deadbeefdead', error: /ref deadbeefdead not found in / },
    { case: 'a path that does not exist', url: () => join(fixture.dir, 'missing'), error: /no repository at / },
    { case: 'a folder inside a repository', url: () => join(fixture.dir, 'skills'), error: /not a git repository: / },
    { case: 'a file:// URL with no repository', url: () => `file://${join(fixture.dir, 'missing')}`, error: /cannot clone file:\/\/.+missing: / },
  ])('fails on $case, with a message and no candidates', async ({ url, ref, error }) => {
    const result = await collect(undefined, { url: url(), ...(ref ? { ref } : {}) });
    expect(result).toMatchObject({ status: 'failed', candidates: [], absenceIsRemoval: false });
    expect(result.error).toMatch(error);
    expect(result.error).toMatch(/^acme\/tools \(/);
  });
});

describe('a collection stopped', () => {
  it('fails the source when the context is aborted, removing the partial clone', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'catalog-git-state-'));
    try {
      const controller = new AbortController();
      controller.abort();
      const result = await collectGitSource(
        { kind: 'git', id: 'git:test', url: `file://${fixture.dir}`, repo: 'acme/tools', bounds: GitBoundsSchema.parse({}) },
        { stateDir, now: new Date(), log: () => undefined, env: {}, signal: controller.signal },
      );
      expect(result).toMatchObject({ status: 'failed', candidates: [] });
      expect(result.error).toMatch(/cannot clone file:\/\/.+: aborted$/);
      expect(readdirSync(join(stateDir, 'clones'))).toEqual([]);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe('a history whose old blobs are missing (a partial clone)', () => {
  it('is dated from object ids alone: a move is followed back to the first commit without reading a blob', async () => {
    const partial = new FixtureRepo();
    try {
      partial.write({ 'old/delta/SKILL.md': skill('delta', 'The delta skill, first version.') });
      partial.commit('first');
      const firstBlob = partial.git('rev-parse', 'HEAD:old/delta/SKILL.md');
      partial.write({ 'old/delta/SKILL.md': skill('delta', 'The delta skill, second version.') });
      partial.commit('second');
      partial.move('old/delta', 'skills/delta');
      partial.commit('third');
      rmSync(join(partial.dir, '.git', 'objects', firstBlob.slice(0, 2), firstBlob.slice(2)));
      const result = await collect(partial);
      expect(result.status).toBe('ok');
      expect(byPath(result, 'skill').get('skills/delta/SKILL.md')).toMatchObject({ firstCommitAt: '2026-01-01T12:00:00Z', updatedAt: '2026-01-03T12:00:00Z' });
    } finally {
      partial.cleanup();
    }
  });

  it('does not follow a move with edits: the file dates from the commit that moved it', async () => {
    const edited = new FixtureRepo();
    try {
      edited.write({ 'old/eps/SKILL.md': skill('eps', 'The eps skill.') });
      edited.commit('first');
      edited.move('old/eps', 'skills/eps');
      edited.write({ 'skills/eps/SKILL.md': skill('eps', 'The eps skill, moved and edited.') });
      edited.commit('second');
      expect(byPath(await collect(edited), 'skill').get('skills/eps/SKILL.md')).toMatchObject({ firstCommitAt: '2026-01-02T12:00:00Z' });
    } finally {
      edited.cleanup();
    }
  });
});

describe('a remote repository', () => {
  it('is cloned bare over a file:// URL once, then fetched, and sees the upstream change', async () => {
    const upstream = new FixtureRepo();
    const stateDir = mkdtempSync(join(tmpdir(), 'catalog-git-state-'));
    try {
      upstream.write({ 'skills/one/SKILL.md': skill('one') }).commit();
      const url = `file://${upstream.dir}`;
      const cloned = await collect(undefined, { url, stateDir });
      expect(cloned).toMatchObject({ status: 'ok' });
      expect(cloned.stats.requests).toBe(1);
      expect(cloned.log[0]).toBe(`git: cloning ${url}`);
      const clones = readdirSync(join(stateDir, 'clones'));
      expect(clones).toEqual([expect.stringMatching(/\.git$/)]);
      expect(existsSync(join(stateDir, 'clones', clones[0]!, 'HEAD'))).toBe(true);

      upstream.remove('skills/one');
      upstream.write({ 'skills/two/SKILL.md': skill('two') });
      const newer = upstream.commit();
      const fetched = await collect(undefined, { url, stateDir });
      expect(fetched.log[0]).toBe(`git: fetching ${url}`);
      expect(fetched).toMatchObject({ status: 'ok', commit: newer.slice(0, 12), absenceIsRemoval: true });
      expect(fetched.stats.requests).toBe(1);
      expect([...byPath(fetched, 'skill').keys()]).toEqual(['skills/two/SKILL.md']);
    } finally {
      upstream.cleanup();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('fails and removes a clone over maxCloneKiB', async () => {
    const upstream = new FixtureRepo();
    const stateDir = mkdtempSync(join(tmpdir(), 'catalog-git-state-'));
    try {
      // Random bytes do not compress: the pack is as large as the file.
      upstream.write({ 'big.bin': randomBytes(2 * 1024 * 1024), 'skills/one/SKILL.md': skill('one') }).commit();
      const result = await collect(undefined, { url: `file://${upstream.dir}`, stateDir, bounds: { maxCloneKiB: 1024 } });
      expect(result).toMatchObject({ status: 'failed', candidates: [] });
      expect(result.error).toMatch(/cannot clone file:\/\/.+: clone exceeds maxCloneKiB \(1024 KiB\)/);
      expect(readdirSync(join(stateDir, 'clones'))).toEqual([]);
    } finally {
      upstream.cleanup();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('fails and removes a clone that a fetch grows over maxCloneKiB', async () => {
    const upstream = new FixtureRepo();
    const stateDir = mkdtempSync(join(tmpdir(), 'catalog-git-state-'));
    try {
      upstream.write({ 'skills/one/SKILL.md': skill('one') }).commit();
      const url = `file://${upstream.dir}`;
      expect((await collect(undefined, { url, stateDir, bounds: { maxCloneKiB: 1024 } })).status).toBe('ok');
      upstream.write({ 'big.bin': randomBytes(2 * 1024 * 1024) }).commit();
      const result = await collect(undefined, { url, stateDir, bounds: { maxCloneKiB: 1024 } });
      expect(result).toMatchObject({ status: 'failed', candidates: [] });
      expect(result.error).toMatch(/cannot fetch file:\/\/.+: clone exceeds maxCloneKiB \(1024 KiB\)/);
      expect(readdirSync(join(stateDir, 'clones'))).toEqual([]);
    } finally {
      upstream.cleanup();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
