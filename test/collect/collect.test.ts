// catalog collect, end to end over repositories the test makes: one listing per identity, stable ids and slugs
// across collections, removal only on positive evidence, a failed source keeps its listings (marked with the day
// they were last confirmed), the shrink guard, and a byte-identical export when nothing changed upstream.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { collect, ShrinkError } from '../../build/collect/collect.ts';
import { FixtureRepo, skillMd } from './support/git-fixture.ts';
import { scratchDirs } from '../cycle/scratch.ts';

const scratch = scratchDirs();
const repos: FixtureRepo[] = [];
afterAll(() => repos.forEach((repo) => repo.cleanup()));

const DAY1 = new Date('2026-11-20T06:00:00Z');
const DAY2 = new Date('2026-11-21T06:00:00Z');

function repoWithSkills(names: string[]): FixtureRepo {
  const repo = new FixtureRepo();
  repos.push(repo);
  for (const name of names) repo.write({ [`skills/${name}/SKILL.md`]: skillMd({ name, description: `Does ${name} things.` }) });
  repo.commit();
  return repo;
}

function sourcesFile(dir: string, entries: Array<Record<string, unknown>>, extra = ''): string {
  const path = join(dir, 'sources.yaml');
  const lines = entries.map(
    (entry) =>
      `  - ${Object.entries(entry)
        .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
        .join('\n    ')}`,
  );
  writeFileSync(path, `${extra}sources:\n${lines.join('\n')}\n`);
  return path;
}

type Listed = Record<string, unknown> & {
  id: string;
  slug: string;
  name: string;
  repo: string;
  confirmedAt?: string;
  source: { path: string; commit: string };
  metrics: Record<string, string>;
};
const records = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Listed);

describe('catalog collect', () => {
  it('collects two repositories into one export that ingest reads, with stored files and a build summary', async () => {
    const dir = scratch('collect-');
    const a = repoWithSkills(['pdf', 'xlsx']);
    const b = repoWithSkills(['pdf']);
    const sources = sourcesFile(dir, [
      { kind: 'git', url: a.dir, repo: 'acme/skills' },
      { kind: 'git', url: b.dir, repo: 'other/skills' },
    ]);
    const out = join(dir, 'out', 'listings.jsonl');
    const report = await collect({ sourcesFile: sources, out, stateDir: join(dir, 'state'), now: DAY1 });
    expect(report.listings).toBe(3);
    const listed = records(out);
    // The same skill name in two repositories: the slug rule gives the second the owner prefix.
    expect(listed.map((r) => r.slug).sort()).toEqual(['other-pdf', 'pdf', 'xlsx']);
    const pdf = listed.find((r) => r.repo === 'acme/skills' && r.name === 'pdf')!;
    expect(pdf).toMatchObject({
      id: 'skill:acme/skills#pdf',
      type: 'skill',
      source: { repo: 'acme/skills', path: 'skills/pdf/SKILL.md' },
      files: ['SKILL.md'],
    });
    expect(pdf.installCommand).toBe('npx skills add acme/skills --skill pdf');
    expect(pdf.metrics).toMatchObject({ installs: 'synthetic', stars: 'synthetic' });
    expect(readFileSync(join(dir, 'out', 'files', 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf');
    const summary = JSON.parse(readFileSync(join(dir, 'out', 'build-summary.json'), 'utf8'));
    expect(summary).toMatchObject({ collectedAt: DAY1.toISOString(), historyEnd: '2026-11-20', listings: 3 });
    expect(report.sources.map((s) => [s.status, s.added])).toEqual([
      ['ok', 2],
      ['ok', 1],
    ]);
  });

  it('keeps ids and slugs across collections, follows a rename, and removes a skill only once its repository is read at a newer commit', async () => {
    const dir = scratch('collect-');
    const repo = repoWithSkills(['alpha', 'beta', 'gamma']);
    const sources = sourcesFile(dir, [{ kind: 'git', url: repo.dir, repo: 'acme/tools' }]);
    const out = join(dir, 'listings.jsonl');
    const state = join(dir, 'state');
    await collect({ sourcesFile: sources, out, stateDir: state, now: DAY1 });
    const before = new Map(records(out).map((r) => [r.name, r]));

    // gamma's folder is renamed (same name in its front matter): the same listing, at its new path.
    repo.move('skills/gamma', 'skills/gamma-renamed');
    repo.remove('skills/beta');
    repo.commit();
    const report = await collect({ sourcesFile: sources, out, stateDir: state, now: DAY2 });
    const after = new Map(records(out).map((r) => [r.name, r]));
    expect([...after.keys()].sort()).toEqual(['alpha', 'gamma']);
    expect(after.get('gamma')!.id).toBe(before.get('gamma')!.id);
    expect(after.get('gamma')!.slug).toBe('gamma');
    expect(after.get('gamma')!.source.path).toBe('skills/gamma-renamed/SKILL.md');
    expect(report.removed).toBe(1);
    // The previous export is kept beside the new one.
    expect(
      records(join(dir, 'listings.previous.jsonl'))
        .map((r) => r.name)
        .sort(),
    ).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('writes a byte-identical export when nothing changed upstream, and a new one when only a figure did', async () => {
    const dir = scratch('collect-');
    const repo = repoWithSkills(['one', 'two']);
    const installsFile = join(dir, 'installs.csv');
    writeFileSync(installsFile, 'repo,skill,installs\nacme/same,one,10\n');
    const sources = sourcesFile(dir, [{ kind: 'git', url: repo.dir, repo: 'acme/same' }]);
    const out = join(dir, 'listings.jsonl');
    await collect({ sourcesFile: sources, out, stateDir: join(dir, 'state'), now: DAY1 });
    const first = readFileSync(out);
    const second = await collect({ sourcesFile: sources, out, stateDir: join(dir, 'state'), now: DAY2 });
    expect(second).toMatchObject({ exportChanged: false, listings: 2, unchanged: 2 });
    expect(readFileSync(out).equals(first)).toBe(true);
    expect(existsSync(join(dir, 'listings.previous.jsonl'))).toBe(false);
    // The catalog was confirmed on day 2: its summary says so, though no listing changed.
    expect(JSON.parse(readFileSync(join(dir, 'build-summary.json'), 'utf8')).collectedAt).toBe(DAY2.toISOString());

    // The repository did not move, but a figure source now measures one skill: only that listing changes.
    const withInstalls = sourcesFile(dir, [
      { kind: 'git', url: repo.dir, repo: 'acme/same' },
      { kind: 'installs', url: installsFile },
    ]);
    const third = await collect({ sourcesFile: withInstalls, out, stateDir: join(dir, 'state'), now: DAY2 });
    expect(third).toMatchObject({ exportChanged: true, changed: 1, unchanged: 1 });
    expect(records(out).find((r) => r.name === 'one')).toMatchObject({ installs: 10, metricsSource: 'real' });
  });

  it('keeps the listings of a source that fails, marked with the day they were last confirmed', async () => {
    const dir = scratch('collect-');
    const good = repoWithSkills(['kept-a', 'kept-b']);
    const other = repoWithSkills(['steady']);
    const out = join(dir, 'listings.jsonl');
    const state = join(dir, 'state');
    const entries = [
      { id: 'flaky', kind: 'git', url: good.dir, repo: 'acme/flaky' },
      { kind: 'git', url: other.dir, repo: 'acme/steady' },
    ];
    await collect({ sourcesFile: sourcesFile(dir, entries), out, stateDir: state, now: DAY1 });
    // The repository disappears (a network failure looks the same): the source fails, nothing is lost.
    const broken = sourcesFile(dir, [{ ...entries[0], url: join(dir, 'no-such-repository') }, entries[1]!]);
    const report = await collect({ sourcesFile: broken, out, stateDir: state, now: DAY2 });
    const listed = records(out);
    expect(listed.map((r) => r.name).sort()).toEqual(['kept-a', 'kept-b', 'steady']);
    expect(
      listed
        .filter((r) => r.confirmedAt)
        .map((r) => [r.name, r.confirmedAt])
        .sort(),
    ).toEqual([
      ['kept-a', '2026-11-20'],
      ['kept-b', '2026-11-20'],
    ]);
    const flaky = report.sources.find((s) => s.id === 'flaky')!;
    expect(flaky).toMatchObject({ status: 'failed', carried: 2 });
    expect(flaky.error).toMatch(/no-such-repository/);
    expect(report.unconfirmed).toBe(2);
  });

  it('stops, writing nothing, when a source would lose more than maxShrink of its listings, unless allowed', async () => {
    const dir = scratch('collect-');
    const names = Array.from({ length: 14 }, (_, i) => `skill-${i}`);
    const repo = repoWithSkills(names);
    const sources = sourcesFile(dir, [{ kind: 'git', url: repo.dir, repo: 'acme/many' }], 'maxShrink: 0.2\n');
    const out = join(dir, 'listings.jsonl');
    const state = join(dir, 'state');
    await collect({ sourcesFile: sources, out, stateDir: state, now: DAY1 });
    const before = readFileSync(out);
    repo.remove(...names.slice(0, 12).map((name) => `skills/${name}`));
    repo.commit();
    await expect(collect({ sourcesFile: sources, out, stateDir: state, now: DAY2, shrinkFloor: 3 })).rejects.toThrow(ShrinkError);
    expect(readFileSync(out).equals(before)).toBe(true);
    const allowed = await collect({ sourcesFile: sources, out, stateDir: state, now: DAY2, shrinkFloor: 3, allowShrink: true });
    expect(allowed.listings).toBe(2);
  });

  it('merges an export source with a repository that re-reads its files: the record keeps its id, figures and history', async () => {
    const dir = scratch('collect-');
    const repo = repoWithSkills(['pdf']);
    const exportDir = join(dir, 'snapshot');
    const exportPath = join(exportDir, 'listings.jsonl');
    const record = {
      id: 'skill:acme/docs#pdf-tools',
      slug: 'pdf-tools',
      type: 'skill',
      name: 'pdf',
      description: 'Old text.',
      repo: 'acme/docs',
      author: 'acme',
      category: 'documents',
      tags: [],
      installs: 1200,
      stars: 40,
      metricsSource: 'real',
      metrics: { installs: 'real', stars: 'real', history: 'interpolated', installsAsOf: '2026-04-16', starsSource: 'skills.sh', starsAsOf: '2026-04-16' },
      installsHistory: [1000, 1100, 1200],
      updatedAt: '2026-01-01T00:00:00Z',
      source: { repo: 'acme/docs', path: 'skills/pdf/SKILL.md', commit: '000000000000' },
    };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(exportDir, { recursive: true });
    writeFileSync(exportPath, `${JSON.stringify(record)}\n`);
    const sources = sourcesFile(dir, [
      { kind: 'export', url: exportPath },
      { kind: 'git', url: repo.dir, repo: 'acme/docs' },
    ]);
    const out = join(dir, 'out', 'listings.jsonl');
    await collect({ sourcesFile: sources, out, stateDir: join(dir, 'state'), now: DAY1 });
    const all = records(out);
    expect(all).toHaveLength(1);
    const merged = all[0]!;
    // Identity by repository and path: the export's id and slug, the repository's text, the export's real figures.
    expect(merged).toMatchObject({
      id: record.id,
      slug: 'pdf-tools',
      description: 'Does pdf things.',
      installs: 1200,
      installsHistory: [1000, 1100, 1200],
      category: 'documents',
    });
    expect(merged.metrics).toMatchObject({ installs: 'real', installsAsOf: '2026-04-16' });
    expect(merged.source.commit).toMatch(/^[0-9a-f]{12}$/);
  });

  it('never shrinks the export when sources fail (property)', async () => {
    const dir = scratch('collect-');
    const fixtures = [repoWithSkills(['p-a', 'p-b']), repoWithSkills(['p-c']), repoWithSkills(['p-d', 'p-e', 'p-f'])];
    const entries = fixtures.map((repo, i) => ({ id: `s${i}`, kind: 'git', url: repo.dir, repo: `acme/p${i}` }));
    const out = join(dir, 'listings.jsonl');
    const state = join(dir, 'state');
    await collect({ sourcesFile: sourcesFile(dir, entries), out, stateDir: state, now: DAY1 });
    const full = records(out).length;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), async (failing) => {
        const file = sourcesFile(
          dir,
          entries.map((entry, i) => (failing[i] ? { ...entry, url: join(dir, `gone-${i}`) } : entry)),
        );
        await collect({ sourcesFile: file, out, stateDir: state, now: DAY2 });
        expect(records(out).length).toBe(full);
      }),
      { numRuns: 8 },
    );
  });
});

describe('catalog collect: figures', () => {
  it('takes stars from the github source and installs from the installs source, labelled real, and keeps them when those sources fail', async () => {
    const { startSyntheticGithub } = await import('./support/github-replay.ts');
    const github = await startSyntheticGithub();
    try {
      const dir = scratch('collect-figures-');
      const repo = repoWithSkills(['deploy', 'lint']);
      const installsFile = join(dir, 'installs.json');
      writeFileSync(installsFile, JSON.stringify([{ source: 'acme/figures', skill: 'deploy', installs: 4200 }]));
      const entries = [
        { kind: 'git', url: repo.dir, repo: 'acme/figures' },
        { kind: 'github', url: github.origin, tokenEnv: 'TEST_GITHUB_TOKEN', mode: 'graphql' },
        { kind: 'installs', url: installsFile },
      ];
      const out = join(dir, 'listings.jsonl');
      const state = join(dir, 'state');
      const report = await collect({ sourcesFile: sourcesFile(dir, entries), out, stateDir: state, now: DAY1, env: { TEST_GITHUB_TOKEN: 'token' } });
      const byName = new Map(records(out).map((r) => [r.name, r]));
      const deploy = byName.get('deploy')!;
      expect(deploy).toMatchObject({ installs: 4200, metricsSource: 'real', installsHistory: [4200, 4200] });
      expect(deploy.metrics).toMatchObject({
        installs: 'real',
        installsAsOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        stars: 'real',
        starsSource: 'github',
      });
      expect(byName.get('lint')!.metrics).toMatchObject({ installs: 'synthetic', stars: 'real' });
      expect(report.sources.find((s) => s.kind === 'github')).toMatchObject({ status: 'ok', requests: 1, listings: 1 });
      const stars = deploy.stars;

      // Both figure sources fail: the last known figures stay, still labelled with where and when they were measured.
      const broken = [
        entries[0]!,
        { ...entries[1]!, url: 'http://127.0.0.1:9', retries: 0, timeoutSeconds: 1 },
        { ...entries[2]!, url: join(dir, 'gone.json') },
      ];
      const again = await collect({ sourcesFile: sourcesFile(dir, broken), out, stateDir: state, now: DAY2, env: { TEST_GITHUB_TOKEN: 'token' } });
      expect(again.sources.find((s) => s.kind === 'installs')).toMatchObject({ status: 'failed', carried: 1 });
      const kept = new Map(records(out).map((r) => [r.name, r])).get('deploy')!;
      expect(kept).toMatchObject({ installs: 4200, stars, metricsSource: 'real' });
      expect(kept.metrics).toMatchObject({ starsSource: 'github', installs: 'real' });
    } finally {
      await github.close();
    }
  });
});
