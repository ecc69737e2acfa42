// Guarantees the git source reads a .claude-plugin/marketplace.json as one marketplace and one plugin per entry,
// whatever the entry's `source` form: local ones (./dir, ".", "./", names under pluginRoot) filled from their
// plugin.json, remote ones (github, url, git-subdir, npm, unknown kinds) recorded as given and never dropped;
// plugin names with spaces kept with a warning; a lone plugin.json as one plugin; a broken manifest skipped with a
// warning that names it.
import { describe, expect, it } from 'vitest';
import { collect, fixtureRepos, warningsOf } from './support/git-fixture.ts';

const repo = fixtureRepos();

const M = '.claude-plugin/marketplace.json';

const marketplace = {
  $schema: 'https://anthropic.com/claude-code/marketplace.schema.json',
  name: 'acme-market',
  description: 'Top-level description',
  owner: { name: 'Acme Inc', email: 'a@example.com' },
  metadata: { description: 'Acme plugins for everything', version: '2.0.0' },
  plugins: [
    { name: 'local', source: './plugins/local', description: 'Entry description', category: 'development' },
    { name: 'dot', source: '.' },
    { name: 'dot-slash', source: './' },
    {
      name: 'gh',
      source: { source: 'github', repo: 'acme/gh-plugin', ref: 'v1' },
      description: 'From GitHub',
      keywords: ['git', 'hub'],
      author: { name: 'Gina' },
    },
    { name: 'by-url', source: { source: 'url', url: 'https://git.example.com/p.git', sha: 'a'.repeat(40) } },
    { name: 'subdir', source: { source: 'git-subdir', url: 'acme/mono', path: 'tools/p' } },
    { name: 'from-npm', source: { source: 'npm', package: '@acme/p', version: '^1' }, version: '1.2.3' },
    { name: 'future', source: { source: 'oci', image: 'ghcr.io/acme/p' } },
    { name: 'Explanatory Output Style', source: './plugins/local' },
    { name: 'not-local', source: 'plugins/raw' },
  ],
};

describe('marketplace.json', () => {
  it('is one marketplace and one plugin per entry, whatever the source form', async () => {
    const fixture = repo();
    fixture
      .write({
        [M]: JSON.stringify(marketplace, null, 2),
        'plugins/local/.claude-plugin/plugin.json': JSON.stringify({
          name: 'local',
          description: 'Own description',
          version: '0.3.0',
          author: { name: 'Lou' },
          keywords: ['lint'],
        }),
        '.claude-plugin/plugin.json': JSON.stringify({ name: 'root', description: 'Root plugin description' }),
      })
      .commit('marketplace', '2026-01-05T10:00:00Z');
    const result = await collect(fixture);
    expect(result.status).toBe('ok');
    const market = result.candidates.find((c) => c.type === 'marketplace');
    expect(market).toMatchObject({
      name: 'acme-market',
      description: 'Acme plugins for everything',
      author: 'Acme Inc',
      pluginCount: 10,
      version: '2.0.0',
      path: M,
      updatedAt: '2026-01-05T10:00:00Z',
    });
    const plugins = result.candidates.filter((c) => c.type === 'plugin');
    expect(plugins.map((p) => [p.name, p.path])).toEqual(marketplace.plugins.map((p) => [p.name, `${M}#${p.name}`]));
    const named = new Map(plugins.map((p) => [p.name, p]));
    // The entry wins; the plugin's own plugin.json fills what the entry leaves out.
    expect(named.get('local')).toMatchObject({
      description: 'Entry description',
      version: '0.3.0',
      author: 'Lou',
      tags: ['lint'],
      categories: ['development'],
      marketplace: 'acme-market',
      updatedAt: '2026-01-05T10:00:00Z',
    });
    expect(named.get('local')!.pluginSource).toBeUndefined();
    expect(named.get('dot')).toMatchObject({ description: 'Root plugin description' });
    expect(named.get('dot-slash')).toMatchObject({ description: 'Root plugin description' });
    expect(named.get('gh')).toMatchObject({
      description: 'From GitHub',
      tags: ['git', 'hub'],
      author: 'Gina',
      pluginSource: { source: 'github', repo: 'acme/gh-plugin', ref: 'v1' },
    });
    expect(named.get('by-url')!.pluginSource).toEqual(marketplace.plugins[4]!.source);
    expect(named.get('subdir')!.pluginSource).toEqual({ source: 'git-subdir', url: 'acme/mono', path: 'tools/p' });
    expect(named.get('from-npm')).toMatchObject({ version: '1.2.3', pluginSource: { source: 'npm', package: '@acme/p', version: '^1' } });
    expect(named.get('future')!.pluginSource).toEqual({ source: 'oci', image: 'ghcr.io/acme/p' });
    expect(named.get('not-local')!.pluginSource).toEqual({ source: 'plugins/raw' });
    expect(warningsOf(result)).toEqual([
      `${M}#dot: source "." is the marketplace root: read as the root folder`,
      `${M}#dot-slash: source "./" is the marketplace root: read as the root folder`,
      `${M}#future: source kind "oci" is not one known (github, url, git-subdir, npm): recorded as given`,
      `${M}#Explanatory Output Style: plugin name "Explanatory Output Style" has spaces (kept as given)`,
      `${M}#not-local: source "plugins/raw" is not a ./ path inside the repository: recorded as given`,
    ]);
    // A root plugin.json under a marketplace is one of its plugins, not a listing of its own.
    expect(plugins.some((p) => p.path === '.claude-plugin/plugin.json')).toBe(false);
  });

  it('resolves bare names under metadata.pluginRoot and refuses paths that leave the repository', async () => {
    const fixture = repo();
    fixture
      .write({
        [M]: JSON.stringify({
          name: 'm',
          owner: { name: 'o' },
          metadata: { pluginRoot: './plugins' },
          plugins: [
            { name: 'fmt', source: 'formatter' },
            { name: 'escape', source: './../../etc' },
          ],
        }),
        'plugins/formatter/.claude-plugin/plugin.json': JSON.stringify({ name: 'fmt', description: 'Formats' }),
      })
      .commit();
    const result = await collect(fixture);
    const plugins = new Map(result.candidates.filter((c) => c.type === 'plugin').map((p) => [p.name, p]));
    expect(plugins.get('fmt')).toMatchObject({ description: 'Formats' });
    expect(plugins.get('escape')!.pluginSource).toEqual({ source: './../../etc' });
  });

  it('lists a duplicate plugin name once and skips entries without a name', async () => {
    const fixture = repo();
    fixture
      .write({
        [M]: JSON.stringify({
          name: 'm',
          owner: { name: 'o' },
          plugins: [{ name: 'p', source: './a', description: 'first' }, { name: 'p', source: './b' }, { source: './c' }, 'text'],
        }),
      })
      .commit();
    const result = await collect(fixture);
    expect(result.candidates.filter((c) => c.type === 'plugin').map((p) => p.description)).toEqual(['first']);
    expect(result.candidates.find((c) => c.type === 'marketplace')!.pluginCount).toBe(4);
    expect(warningsOf(result)).toEqual([
      `${M}#p: a second plugin named p: only the first is listed`,
      `${M}#2: skipped: a plugin entry without a name`,
      `${M}#3: skipped: a plugin entry without a name`,
    ]);
  });

  it('skips a marketplace.json that is not JSON, with a warning, and the source still succeeds', async () => {
    const fixture = repo();
    fixture.write({ [M]: '{ "name": "m", ', 'skills/s/SKILL.md': '---\nname: s\ndescription: D.\n---\n' }).commit();
    const result = await collect(fixture);
    expect(result.status).toBe('ok');
    expect(result.candidates.map((c) => c.type)).toEqual(['skill']);
    expect(warningsOf(result)).toEqual([expect.stringMatching(/^\.claude-plugin\/marketplace\.json: skipped: not JSON \(.+\)$/)]);
  });
});

describe('plugin.json without a marketplace', () => {
  it('is one plugin, dated by its own last commit', async () => {
    const fixture = repo();
    fixture
      .write({
        '.claude-plugin/plugin.json': JSON.stringify({
          name: 'solo',
          description: 'Solo plugin',
          version: '1.0.0',
          author: 'Sam',
          keywords: ['a'],
          homepage: 'https://example.com',
        }),
      })
      .commit();
    fixture.write({ 'README.md': 'later' }).commit();
    const result = await collect(fixture);
    expect(result.candidates).toEqual([
      expect.objectContaining({
        type: 'plugin',
        name: 'solo',
        description: 'Solo plugin',
        version: '1.0.0',
        author: 'Sam',
        tags: ['a'],
        homepage: 'https://example.com',
        path: '.claude-plugin/plugin.json',
        updatedAt: '2026-01-01T12:00:00Z',
      }),
    ]);
  });
});
