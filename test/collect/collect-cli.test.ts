// The collect command line as cron or an operator runs it: `catalog collect --json` prints a report per source,
// exit codes say a bad sources file (64) and a refused shrink (5), and `catalog rebuild --collect` collects,
// ingests, builds and switches, with the catalog's last-updated time the collection's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FixtureRepo, skillMd } from './support/git-fixture.ts';
import { jsonOf, runCli } from '../cycle/cli-runner.ts';
import { scratchDirs } from '../cycle/scratch.ts';
import { json, startInProcess } from '../support/server.ts';

const scratch = scratchDirs();
const repo = new FixtureRepo();
afterAll(() => repo.cleanup());
repo.write({
  'skills/changelog/SKILL.md': skillMd({ name: 'changelog', description: 'Writes a changelog from the commits since the last tag.' }),
  'skills/release/SKILL.md': skillMd({ name: 'release', description: 'Cuts a release: bumps the version, tags, publishes.' }),
  '.claude-plugin/marketplace.json': JSON.stringify({
    name: 'acme-tools',
    owner: { name: 'Acme' },
    plugins: [{ name: 'release-kit', source: './', description: 'Release helpers' }],
  }),
});
repo.commit();

function sources(dir: string, text: string): string {
  const path = join(dir, 'sources.yaml');
  writeFileSync(path, text);
  return path;
}

interface CollectJson {
  listings: number;
  added: number;
  sources: Array<{
    id: string;
    kind: string;
    status: string;
    listings: number;
    added: number;
    requests: number;
    notModified: number;
    rateLimitWaits: number;
    warnings: unknown[];
  }>;
}

describe('catalog collect (command line)', () => {
  it("prints one JSON report with every source's counts", async () => {
    const dir = scratch('collect-cli-');
    const file = sources(dir, `sources:\n  - kind: git\n    url: ${repo.dir}\n    repo: acme/release-tools\n`);
    const result = await runCli(['collect', '--sources', file, '--out', join(dir, 'out', 'listings.jsonl'), '--state', join(dir, 'state'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf<CollectJson>(result);
    expect(report.listings).toBe(4);
    expect(report.sources).toEqual([
      expect.objectContaining({ id: 'git:acme/release-tools', kind: 'git', status: 'ok', listings: 4, added: 4, rateLimitWaits: 0, notModified: 0 }),
    ]);
    // Real files break the rules; each is read leniently and said, with the file and why.
    expect(report.sources[0]!.warnings).toEqual([
      { where: expect.stringMatching(/^acme\/release-tools@[0-9a-f]{12}:skills\/release\/SKILL\.md$/), message: expect.stringMatching(/unquoted ': '/) },
      { where: expect.stringMatching(/marketplace\.json#release-kit$/), message: expect.stringMatching(/"\.\/" is the marketplace root/) },
    ]);
  });

  it.each([
    ['not YAML', 'sources: [', /not YAML/],
    ['an unknown kind', 'sources:\n  - kind: ftp\n    url: x\n', /sources\[0\]\.kind/],
    ['a local git path without repo', 'sources:\n  - kind: git\n    url: /tmp/x\n', /repo: required/],
    ['a page size over the registry maximum', 'sources:\n  - kind: mcp-registry\n    url: http://127.0.0.1:1\n    limit: 500\n', /limit/],
  ])('refuses a sources file with %s (exit 64, one message)', async (_case, text, message) => {
    const dir = scratch('collect-cli-');
    const result = await runCli(['collect', '--sources', sources(dir, text), '--out', join(dir, 'listings.jsonl'), '--state', join(dir, 'state')]);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(message);
  });

  it('rebuild --collect collects, builds and dates the catalog by the collection', async () => {
    const dir = scratch('collect-cli-');
    const dataDir = join(dir, 'data');
    const file = sources(dir, `sources:\n  - kind: git\n    url: ${repo.dir}\n    repo: acme/release-tools\n`);
    const result = await runCli(
      ['rebuild', '--collect', file, '--no-notify', '--json', '--quiet'],
      { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' },
      240_000,
    );
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf<{ collect: { listings: number; collectedAt: string }; build: { dir: string; listings: number } }>(result);
    expect(report.build.listings).toBe(4);
    const summary = JSON.parse(readFileSync(join(dataDir, 'collected', 'build-summary.json'), 'utf8'));
    expect(summary.collectedAt).toBe(report.collect.collectedAt);
    const server = await startInProcess({}, { buildDir: report.build.dir }, { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' });
    try {
      const meta = await json<{ lastUpdated: string }>(await server.fetch('/api/v1/meta'));
      expect(meta.lastUpdated).toBe(report.collect.collectedAt);
    } finally {
      await server.close();
    }
  }, 300_000);
});
