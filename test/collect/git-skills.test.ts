// Guarantees the git source finds skills where the `skills` CLI finds them and in its order (a root SKILL.md alone;
// else the root's children, skills/ and its .curated/.experimental/.system, the agent folders, the plugin
// manifests' folders; the bounded recursive walk only when those find nothing), reads real-world SKILL.md defects
// leniently with a warning naming the file and why, and stores SKILL.md then the folder's text files within bounds.
import { describe, expect, it } from 'vitest';
import { AGENT_FOLDERS } from '../../build/collect/git/skills.ts';
import { byPath, collect, type FixtureRepo, fixtureRepos, skillMd, warningsOf } from './support/git-fixture.ts';

const repo = fixtureRepos();

const skill = (name: string, description = `The ${name} skill.`) => skillMd({ name, description });
const skillPaths = async (fixture: FixtureRepo) => (await collect(fixture)).candidates.filter((c) => c.type === 'skill').map((c) => c.path);

describe('skill discovery', () => {
  it('reads every location the CLI reads, in its order', async () => {
    const locations = [
      '',
      'skills',
      'skills/.curated',
      'skills/.experimental',
      'skills/.system',
      '.agent/skills',
      '.agents/skills',
      '.claude/skills',
      ...AGENT_FOLDERS.map((agent) => `.${agent}/skills`),
    ];
    const fixture = repo();
    const files: Record<string, string> = {};
    locations.forEach((dir, index) => {
      const name = `skill-${index}`;
      files[`${dir ? `${dir}/` : ''}${name}/SKILL.md`] = skill(name);
    });
    fixture.write(files).commit();
    expect(await skillPaths(fixture)).toEqual(locations.map((dir, index) => `${dir ? `${dir}/` : ''}skill-${index}/SKILL.md`));
  });

  it('takes a root SKILL.md as the one skill of the repository', async () => {
    const fixture = repo();
    fixture.write({ 'SKILL.md': skill('root'), 'skills/other/SKILL.md': skill('other') }).commit();
    expect(await skillPaths(fixture)).toEqual(['SKILL.md']);
  });

  it('goes on past a root SKILL.md that is not a valid skill', async () => {
    const fixture = repo();
    fixture.write({ 'SKILL.md': skillMd({ name: 'root' }), 'skills/other/SKILL.md': skill('other') }).commit();
    const result = await collect(fixture);
    expect(byPath(result, 'skill').has('skills/other/SKILL.md')).toBe(true);
    expect(warningsOf(result)).toContain('SKILL.md: skipped: no description in the front matter');
  });

  it('adds the folders the plugin manifests name: pluginRoot with ./ sources, plugins[].skills, plugin.json skills', async () => {
    const fixture = repo();
    fixture
      .write({
        '.claude-plugin/marketplace.json': JSON.stringify({
          name: 'm',
          owner: { name: 'Acme' },
          metadata: { pluginRoot: './plugins' },
          plugins: [
            { name: 'one', source: './one' },
            { name: 'two', source: './two', skills: ['./extra/listed'] },
            { name: 'far', source: { source: 'github', repo: 'x/y' } },
          ],
        }),
        '.claude-plugin/plugin.json': JSON.stringify({ name: 'root-plugin', skills: ['./custom/mine'] }),
        'plugins/one/skills/alpha/SKILL.md': skill('alpha'),
        'plugins/two/extra/listed/SKILL.md': skill('listed'),
        'custom/mine/SKILL.md': skill('mine'),
        'deep/nested/hidden/SKILL.md': skill('hidden'),
      })
      .commit();
    // `custom/` is a child of the root too, but its SKILL.md is one level down: the manifest names it first; the
    // walk that follows finds the skill no location names.
    expect(await skillPaths(fixture)).toEqual([
      'plugins/one/skills/alpha/SKILL.md',
      'plugins/two/extra/listed/SKILL.md',
      'custom/mine/SKILL.md',
      'deep/nested/hidden/SKILL.md',
    ]);
  });

  it('walks the tree only when no location has a skill, to maxDepth, skipping node_modules, dist, build, __pycache__', async () => {
    const fixture = repo();
    fixture
      .write({
        'a/b/one/SKILL.md': skill('one'),
        'a/b/c/d/e/too-deep/SKILL.md': skill('too-deep'),
        'a/b/c/d/five/SKILL.md': skill('five'),
        'node_modules/pkg/x/SKILL.md': skill('in-node-modules'),
        'dist/x/SKILL.md': skill('in-dist'),
        'build/x/SKILL.md': skill('in-build'),
        'py/__pycache__/x/SKILL.md': skill('in-pycache'),
      })
      .commit();
    expect(await skillPaths(fixture)).toEqual(['a/b/c/d/five/SKILL.md', 'a/b/one/SKILL.md']);
  });

  it('walks after the locations too, so nested layouts are listed (the CLI stops at the locations)', async () => {
    const fixture = repo();
    fixture.write({ 'skills/top/SKILL.md': skill('top'), 'packages/x/deep/SKILL.md': skill('deep') }).commit();
    expect(await skillPaths(fixture)).toEqual(['skills/top/SKILL.md', 'packages/x/deep/SKILL.md']);
  });

  it('accepts skill.md, and lists both skills of one name, saying which one `--skill` installs', async () => {
    const fixture = repo();
    fixture.write({ 'skills/lower/skill.md': skill('lower'), 'skills/a-dup/SKILL.md': skill('dup'), '.claude/skills/dup/SKILL.md': skill('dup') }).commit();
    const result = await collect(fixture);
    expect([...byPath(result, 'skill').keys()]).toEqual(['skills/a-dup/SKILL.md', 'skills/lower/skill.md', '.claude/skills/dup/SKILL.md']);
    expect(warningsOf(result)).toContain('.claude/skills/dup/SKILL.md: a skill named dup was found first elsewhere; `--skill dup` installs that one');
  });
});

describe('SKILL.md read leniently, skipped only when unreadable', () => {
  it.each([
    {
      case: 'an unquoted ": " in the description',
      text: '---\nname: colon\ndescription: Use when: the user asks: anything\n---\n# Colon\n',
      description: 'Use when: the user asks: anything',
      warning: "unquoted ': ' in description: read as a quoted string",
    },
    {
      case: 'an unquoted ": " on a value that continues on the next line',
      text: '---\nname: colon\ndescription: Use when: the user asks\n  for more\nlicense: MIT\n---\n',
      description: 'Use when: the user asks for more',
      warning: "unquoted ': ' in description: read as a quoted string",
    },
    {
      case: 'a name that differs from its folder',
      text: skillMd({ name: 'other-name', description: 'D.' }),
      description: 'D.',
      name: 'other-name',
      warning: 'name other-name differs from its folder colon (kept)',
    },
    {
      case: 'no name',
      text: skillMd({ description: 'D.' }),
      description: 'D.',
      name: 'colon',
      warning: 'no name in the front matter: named after its folder (colon)',
    },
    { case: 'a block scalar description', text: '---\nname: colon\ndescription: |\n  Line one.\n  Line two.\n---\n', description: 'Line one.\nLine two.\n' },
    { case: 'a byte-order mark and CRLF lines', text: '\uFEFF---\r\nname: colon\r\ndescription: D.\r\n---\r\nBody\r\n', description: 'D.' },
  ])('accepts $case', async ({ text, description, name, warning }) => {
    const fixture = repo();
    fixture.write({ 'skills/colon/SKILL.md': text }).commit();
    const result = await collect(fixture);
    const found = byPath(result, 'skill').get('skills/colon/SKILL.md');
    expect(found).toMatchObject({ name: name ?? 'colon', description });
    if (warning) expect(warningsOf(result)).toContain(`skills/colon/SKILL.md: ${warning}`);
    else expect(result.stats.warnings).toEqual([]);
  });

  it.each([
    { case: 'no description', text: skillMd({ name: 'bad' }), why: 'skipped: no description in the front matter' },
    { case: 'an empty description', text: skillMd({ name: 'bad', description: '""' }), why: 'skipped: no description in the front matter' },
    { case: 'YAML that cannot be read', text: '---\nname: [unclosed\ndescription: D.\n---\n', why: /^skipped: front matter is not YAML \(.+\)$/ },
    { case: 'front matter that is a list', text: '---\n- a\n- b\n---\n', why: 'skipped: front matter is not YAML (front matter is not a mapping)' },
    { case: 'no front matter', text: '# Just a heading\n', why: 'skipped: no front matter (--- name/description ---)' },
    {
      case: 'metadata.internal: true',
      text: '---\nname: bad\ndescription: D.\nmetadata:\n  internal: true\n---\n',
      why: 'skipped: metadata.internal is true (hidden by the skills CLI)',
    },
  ])('skips $case with a warning naming the file', async ({ text, why }) => {
    const fixture = repo();
    fixture.write({ 'skills/bad/SKILL.md': text, 'skills/good/SKILL.md': skill('good') }).commit();
    const result = await collect(fixture);
    expect([...byPath(result, 'skill').keys()]).toEqual(['skills/good/SKILL.md']);
    const warning = result.stats.warnings.find((w) => w.where.endsWith(':skills/bad/SKILL.md'));
    expect(warning?.where).toMatch(/^acme\/tools@[0-9a-f]{12}:skills\/bad\/SKILL\.md$/);
    expect(warning?.message).toEqual(typeof why === 'string' ? why : expect.stringMatching(why));
  });

  it('reads author and tags from the front matter or its metadata, and keeps the text raw', async () => {
    const fixture = repo();
    fixture
      .write({
        'skills/a/SKILL.md': '---\nname: a\ndescription: "  **Bold**   text  "\nauthor: Ann\ntags: [x, y]\n---\n',
        'skills/b/SKILL.md': '---\nname: b\ndescription: D.\nmetadata:\n  author: Bob\n  tags: one, two\n---\n',
        'skills/c/SKILL.md': skill('c'),
      })
      .commit();
    const skills = byPath(await collect(fixture), 'skill');
    expect(skills.get('skills/a/SKILL.md')).toMatchObject({ author: 'Ann', tags: ['x', 'y'], description: '  **Bold**   text  ' });
    expect(skills.get('skills/b/SKILL.md')).toMatchObject({ author: 'Bob', tags: ['one', 'two'] });
    expect(skills.get('skills/c/SKILL.md')?.author).toBeUndefined();
  });
});

describe('stored files', () => {
  it('stores SKILL.md first, then the folder text files sorted, leaving out binaries, hidden files and nested skills', async () => {
    const fixture = repo();
    fixture
      .write({
        'skills/s/SKILL.md': skill('s'),
        'skills/s/scripts/run.sh': '#!/bin/sh\necho hi\n',
        'skills/s/README.md': 'readme',
        'skills/s/assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        'skills/s/data.bin2': Buffer.from([1, 0, 2]),
        'skills/s/.env': 'SECRET=1',
        'skills/s/inner/SKILL.md': skill('inner'),
        'skills/s/inner/notes.md': 'inner notes',
      })
      .commit();
    const result = await collect(fixture);
    const stored = byPath(result, 'skill').get('skills/s/SKILL.md')!.files!;
    expect(stored.map((file) => file.path)).toEqual(['SKILL.md', 'README.md', 'scripts/run.sh']);
    expect(stored[0]!.content).toBe(skill('s'));
    expect(warningsOf(result)).toContain(
      'skills/s/SKILL.md: files not stored: 1 hidden or oddly named (.env); 1 not stored by extension (assets/logo.png); 1 binary (NUL bytes) (data.bin2)',
    );
  });

  it('keeps within maxFilesPerSkill, maxSkillBytes and maxFileBytes', async () => {
    const fixture = repo();
    fixture
      .write({
        'skills/s/SKILL.md': skill('s'),
        'skills/s/a.md': 'a'.repeat(100),
        'skills/s/b.md': 'b'.repeat(5000),
        'skills/s/c.md': 'c'.repeat(100),
        'skills/s/d.md': 'd'.repeat(100),
        'skills/s/e.md': 'e'.repeat(100),
      })
      .commit();
    const result = await collect(fixture, { bounds: { maxFilesPerSkill: 3, maxSkillBytes: 2000, maxFileBytes: 4000 } });
    expect(
      byPath(result, 'skill')
        .get('skills/s/SKILL.md')!
        .files!.map((file) => file.path),
    ).toEqual(['SKILL.md', 'a.md', 'c.md']);
    expect(warningsOf(result)).toContain(
      'skills/s/SKILL.md: files not stored: 1 beyond maxSkillBytes (2000) (b.md); 2 beyond maxFilesPerSkill (3) (d.md, e.md)',
    );
  });

  it('stores only SKILL.md of a root skill: its folder is the whole repository', async () => {
    const fixture = repo();
    fixture.write({ 'SKILL.md': skill('root'), 'README.md': 'project readme', 'src/index.ts': 'code' }).commit();
    const result = await collect(fixture);
    expect(
      byPath(result, 'skill')
        .get('SKILL.md')!
        .files!.map((file) => file.path),
    ).toEqual(['SKILL.md']);
  });
});
