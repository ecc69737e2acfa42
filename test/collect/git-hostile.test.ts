// Guarantees a hostile repository leaks nothing and stops nothing: a SKILL.md (or a manifest, a workflow, a bundled
// file) that is a symbolic link to a host file is skipped and its target never read; submodules are not followed;
// files over maxFileBytes are not read; a tree past maxTreeEntries fails the source; a very deep tree is walked
// only to maxDepth; invalid UTF-8 is read with replacement characters and a warning; a file with NUL bytes is
// binary, not stored; and no hook or command named by the repository's configuration runs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byPath, collect, fixtureRepos, skillMd, warningsOf } from './support/git-fixture.ts';

const repo = fixtureRepos();

const skill = (name: string, description = `The ${name} skill.`) => skillMd({ name, description });
const PASSWD = '/etc/passwd';

describe('a hostile repository', () => {
  it('never follows a symbolic link: the linked host file appears in no candidate', async () => {
    const fixture = repo();
    fixture
      .write({ 'skills/good/SKILL.md': skill('good'), 'workflows/ok.md': '---\non: push\n---\nFine.\n' })
      .symlink('skills/evil/SKILL.md', PASSWD)
      .symlink('skills/good/passwd.md', PASSWD)
      .symlink('skills/good/escape', '../../..')
      .symlink('.claude-plugin/marketplace.json', PASSWD)
      .symlink('workflows/leak.md', PASSWD)
      .commit();
    const result = await collect(fixture);
    expect(result.status).toBe('ok');
    expect(result.candidates.map((c) => c.path)).toEqual(['skills/good/SKILL.md', 'workflows/ok.md']);
    expect(
      byPath(result, 'skill')
        .get('skills/good/SKILL.md')!
        .files!.map((file) => file.path),
    ).toEqual(['SKILL.md']);
    const serialized = JSON.stringify(result);
    const hostText = readFileSync(PASSWD, 'utf8');
    for (const line of hostText.split('\n').filter((text) => text.length > 8)) expect(serialized).not.toContain(line);
    expect(warningsOf(result)).toEqual([
      'skills/evil/SKILL.md: skipped: SKILL.md is a symbolic link (never followed)',
      'skills/good/SKILL.md: files not stored: 2 a symbolic link (never followed) (escape, passwd.md)',
      '.claude-plugin/marketplace.json: skipped: a symbolic link (never followed)',
      'workflows/leak.md: skipped: a symbolic link (never followed)',
    ]);
  });

  it('does not follow a submodule', async () => {
    const fixture = repo();
    fixture.write({ 'skills/good/SKILL.md': skill('good') });
    const commit = fixture.commit();
    fixture.git('update-index', '--add', '--cacheinfo', `160000,${commit},skills/sub/SKILL.md`);
    fixture.git('update-index', '--add', '--cacheinfo', `160000,${commit},skills/good/vendored`);
    // Committed from the index as it is: `git add --all` would stage the gitlinks' absence from the work tree.
    fixture.git('commit', '--quiet', '-m', 'gitlinks');
    const result = await collect(fixture);
    expect(result.candidates.map((c) => c.path)).toEqual(['skills/good/SKILL.md']);
    expect(warningsOf(result)).toEqual([
      'skills/good/SKILL.md: files not stored: 1 a submodule (never followed) (vendored)',
      'skills/sub/SKILL.md: skipped: SKILL.md is a submodule (never followed)',
    ]);
  });

  it('does not read files over maxFileBytes', async () => {
    const fixture = repo();
    const big = skillMd({ name: 'huge', description: 'Huge.' }, 'x'.repeat(20_000));
    fixture
      .write({ 'skills/huge/SKILL.md': big, 'skills/good/SKILL.md': skill('good'), 'skills/good/big.md': 'y'.repeat(20_000), 'skills/good/small.md': 'small' })
      .commit();
    const result = await collect(fixture, { bounds: { maxFileBytes: 10_000 } });
    expect(result.candidates.map((c) => c.path)).toEqual(['skills/good/SKILL.md']);
    expect(
      byPath(result, 'skill')
        .get('skills/good/SKILL.md')!
        .files!.map((file) => file.path),
    ).toEqual(['SKILL.md', 'small.md']);
    expect(warningsOf(result)).toEqual([
      `skills/good/SKILL.md: files not stored: 1 over maxFileBytes (10000) (big.md)`,
      `skills/huge/SKILL.md: skipped: SKILL.md is ${Buffer.byteLength(big)} bytes, over maxFileBytes (10000)`,
    ]);
  });

  it('fails the source on a tree past maxTreeEntries', async () => {
    const fixture = repo();
    fixture.write(Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f/${index}.txt`, String(index)]))).commit();
    const result = await collect(fixture, { bounds: { maxTreeEntries: 20 } });
    expect(result).toMatchObject({ status: 'failed', candidates: [] });
    expect(result.error).toMatch(/tree has more than maxTreeEntries \(20\) entries/);
  });

  it('walks a very deep tree only to maxDepth', async () => {
    const fixture = repo();
    const deep = `${Array.from({ length: 60 }, (_, index) => `d${index}`).join('/')}`;
    fixture.write({ [`${deep}/SKILL.md`]: skill('deep'), 'a/b/shallow/SKILL.md': skill('shallow') }).commit();
    const result = await collect(fixture);
    expect(result.candidates.map((c) => c.path)).toEqual(['a/b/shallow/SKILL.md']);
  });

  it('reads invalid UTF-8 with replacement characters and a warning', async () => {
    const fixture = repo();
    const latin1 = Buffer.concat([Buffer.from('---\nname: latin\ndescription: Caf'), Buffer.from([0xe9]), Buffer.from(' menu\n---\n')]);
    fixture.write({ 'skills/latin/SKILL.md': latin1, 'skills/latin/notes.txt': Buffer.from([0x6f, 0x6b, 0xff]) }).commit();
    const result = await collect(fixture);
    const found = byPath(result, 'skill').get('skills/latin/SKILL.md')!;
    expect(found.description).toBe('Caf\uFFFD menu');
    expect(found.files!.map((file) => [file.path, file.content.endsWith('\uFFFD')])).toEqual([
      ['SKILL.md', false],
      ['notes.txt', true],
    ]);
    expect(warningsOf(result)).toEqual([
      'skills/latin/SKILL.md: invalid UTF-8, read with replacement characters',
      'skills/latin/notes.txt: invalid UTF-8, stored with replacement characters',
    ]);
  });

  it('treats a file with NUL bytes as binary: a SKILL.md skipped, a bundled file not stored', async () => {
    const fixture = repo();
    fixture
      .write({
        'skills/bin/SKILL.md': Buffer.from('---\nname: bin\ndescription: D.\n---\n\0\0'),
        'skills/good/SKILL.md': skill('good'),
        'skills/good/blob.dat': Buffer.from([0, 1, 2, 3]),
      })
      .commit();
    const result = await collect(fixture);
    expect(result.candidates.map((c) => c.path)).toEqual(['skills/good/SKILL.md']);
    expect(warningsOf(result)).toEqual([
      'skills/bin/SKILL.md: skipped: SKILL.md is binary (NUL bytes)',
      'skills/good/SKILL.md: files not stored: 1 binary (NUL bytes) (blob.dat)',
    ]);
  });

  it('runs no hook and no command named by the repository configuration, local or cloned', async () => {
    const fixture = repo();
    fixture.write({ 'skills/good/SKILL.md': skill('good') }).commit();
    const marker = join(fixture.dir, 'pwned');
    const script = `#!/bin/sh\ntouch ${marker}\n`;
    for (const hook of ['reference-transaction', 'post-checkout', 'post-merge', 'pre-auto-gc', 'post-rewrite']) {
      writeFileSync(join(fixture.dir, '.git', 'hooks', hook), script, { mode: 0o755 });
    }
    for (const [key, value] of [
      ['core.fsmonitor', `touch ${marker}`],
      ['core.pager', `touch ${marker}`],
      ['uploadpack.packObjectsHook', `touch ${marker}; git`],
      ['core.sshCommand', `touch ${marker}`],
    ]) {
      fixture.git('config', key!, value!);
    }
    const local = await collect(fixture);
    const cloned = await collect(undefined, { url: `file://${fixture.dir}` });
    expect([local.status, cloned.status]).toEqual(['ok', 'ok']);
    expect(existsSync(marker)).toBe(false);
  });
});
