// Guarantees a rebuild renders only the pages whose inputs changed and links the others from the build it replaces:
// a changed listing's page says the new text, an unchanged one is the previous build's file (the same inode, not
// rendered), a removed listing's page is gone, the figures every page would share (the ranks) are right in their
// shared parts, the pages that show a changed count are rendered again, the previous build is never modified, the
// switch happens only at the end, and a failed incremental build leaves the build being served as it was.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDirs, currentBuild, INDEX_STAGE, runBuild, type BuildResult, type Stage } from '../../build/build-pipeline.ts';
import { SITE_STAGE, type SiteStats } from '../../build/stages/site-stage.ts';
import { rankPart, type RankPart } from '../../src/page-model/rank-parts.ts';
import { walkFiles } from '../../build/walk-files.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';

const BASE = 'http://catalog.test';
/** Raised to the top of the skills by installs (find-skills, the first, has 1,100,000). */
const CHANGED = 'web-design-guidelines';
/** One of anthropics' six listings: its owner's other pages say "5 listings here" once it is gone. */
const REMOVED = 'discord-plugin';
/** Not related to either: its page must be carried. find-skills shares an owner with CHANGED, but not a count. */
const UNRELATED = ['dify', 'open-webui', 'find-skills'];
/** Unchanged, but its page file is gone from the first build (a disk fault, a hand): the second renders it again. */
const GONE = 'prompts-chat';
/** A new owner of one MCP server in the second build. */
const NEWCOMER = 'newcomer-labs';

/** Every file of a site: its inode and the digest of its bytes. */
async function snapshot(site: string): Promise<Map<string, { ino: number; digest: string }>> {
  const files = new Map<string, { ino: number; digest: string }>();
  for await (const path of walkFiles(site)) {
    const file = join(site, path);
    files.set(path, { ino: statSync(file).ino, digest: createHash('sha256').update(readFileSync(file)).digest('hex') });
  }
  return files;
}

const page = (build: string, path: string) => join(build, 'site', `${path}.html`);
/** The owners with a page in a build (owners/<owner>.html). */
const ownerNames = (build: string) =>
  readdirSync(join(build, 'site', 'owners'))
    .filter((name) => name.endsWith('.html'))
    .map((name) => name.slice(0, -'.html'.length));
const stats = (build: string) => JSON.parse(readFileSync(join(build, 'astro', 'site-stats.json'), 'utf8')) as SiteStats;
const ranks = (build: string, slug: string) =>
  (JSON.parse(readFileSync(join(build, 'site', 'ranks', `${rankPart(slug)}.json`), 'utf8')) as RankPart).listings[slug];

describe('incremental pages', () => {
  const dir = tempDir('catalog-incremental-');
  const dataDir = join(dir, 'data');
  const records = sampleRecords(4);
  let first: BuildResult;
  let second: BuildResult;
  let firstFiles: Map<string, { ino: number; digest: string }>;
  let servingDuringSecond: string | undefined;

  beforeAll(async () => {
    first = await runBuild({ dataDir, exportPath: writeExport(join(dir, 'export-1'), records), baseUrl: BASE, quiet: true, stages: [INDEX_STAGE, SITE_STAGE] });
    for (const suffix of ['', '.br', '.gz']) rmSync(page(first.buildDir, `listings/${GONE}`) + suffix, { force: true });
    firstFiles = await snapshot(join(first.buildDir, 'site'));
    const next: ListingRecord[] = records
      .filter((record) => record.slug !== REMOVED)
      .map((record) =>
        record.slug === CHANGED
          ? {
              ...record,
              installs: 2_000_000,
              installsHistory: [...(record.installsHistory ?? []).slice(0, -1), 2_000_000],
              description: 'Rewritten today: checks a UI against the guidelines.',
            }
          : record,
      );
    // A newcomer: one more owner of MCP servers, so every MCP owner's rank reads "of N + 1" (no page of its own: one
    // listing, of figures and words of its own, so it is nobody's copy).
    const server = records.find((record) => record.type === 'mcp')!;
    next.push({
      ...server,
      id: `mcp:${NEWCOMER}/tool#newcomer-tool`,
      slug: 'newcomer-tool',
      name: 'Newcomer Tool',
      description: 'A first server of its own, unlike any other here.',
      repo: `${NEWCOMER}/tool`,
      author: NEWCOMER,
      installs: 10,
      stars: 1,
      installsHistory: Array.from({ length: 30 }, () => 10),
      files: [],
    });
    // Seen from inside the build, after its pages are made: the switch has not happened yet.
    const probe: Stage = {
      name: 'probe',
      run: async () => {
        servingDuringSecond = currentBuild(buildDirs(dataDir));
      },
    };
    second = await runBuild({
      dataDir,
      exportPath: writeExport(join(dir, 'export-2'), next),
      baseUrl: BASE,
      quiet: true,
      stages: [INDEX_STAGE, SITE_STAGE, probe],
    });
  }, 240_000);

  it('renders the changed listing and the pages that list it or share its counts, and carries the others', async () => {
    const html = readFileSync(page(second.buildDir, `listings/${CHANGED}`), 'utf8');
    expect(html).toContain('Rewritten today: checks a UI against the guidelines.');
    expect(statSync(page(second.buildDir, `listings/${CHANGED}`)).ino).not.toBe(statSync(page(first.buildDir, `listings/${CHANGED}`)).ino);
    for (const slug of UNRELATED) {
      const before = statSync(page(first.buildDir, `listings/${slug}`));
      expect(statSync(page(second.buildDir, `listings/${slug}`)).ino, slug).toBe(before.ino);
      // The scripts and styles a carried page names are the new build's too (the same code made them).
      for (const [asset] of readFileSync(page(second.buildDir, `listings/${slug}`), 'utf8').matchAll(/\/_astro\/[^"']+/g)) {
        expect(existsSync(join(second.buildDir, 'site', asset)), asset).toBe(true);
      }
    }
    // The owner page that lists the changed listing is rendered again and shows its new figure.
    expect(statSync(page(second.buildDir, 'owners/vercel-labs')).ino).not.toBe(statSync(page(first.buildDir, 'owners/vercel-labs')).ino);
    expect(readFileSync(page(second.buildDir, 'owners/vercel-labs'), 'utf8')).toContain('Rewritten today');
    // anthropics lost a listing: each of its pages says so, rendered again.
    for (const slug of ['frontend-design', 'lua-lsp']) {
      expect(readFileSync(page(first.buildDir, `listings/${slug}`), 'utf8')).toContain('(6 listings here)');
      expect(readFileSync(page(second.buildDir, `listings/${slug}`), 'utf8')).toContain('(5 listings here)');
    }
    // The page gone from the first build is rendered again, not linked from nowhere.
    expect(existsSync(page(first.buildDir, `listings/${GONE}`))).toBe(false);
    expect(readFileSync(page(second.buildDir, `listings/${GONE}`), 'utf8')).toContain('prompts.chat');
    // Counted: 8 listing pages (the changed one, anthropics' five, the newcomer's and the gone one) and 2 owner pages
    // rendered; every other carried, the owner pages whose rank now reads "of N + 1" included.
    const listingPages = records.length;
    const ownerPages = ownerNames(second.buildDir).length;
    expect(stats(second.buildDir).incremental).toMatchObject({ rendered: 10, carried: listingPages + ownerPages - 10 });
    expect(stats(first.buildDir).incremental).toMatchObject({ rendered: listingPages + ownerPages, carried: 0 });
  });

  it('serves no page of a removed listing', () => {
    expect(existsSync(page(first.buildDir, `listings/${REMOVED}`))).toBe(true);
    expect(existsSync(page(second.buildDir, `listings/${REMOVED}`))).toBe(false);
  });

  it('the ranks every page would share are right in their shared parts, carried pages included', () => {
    // The changed listing is now first of the four skills; find-skills, carried, second.
    expect(ranks(second.buildDir, CHANGED)).toEqual([1, expect.any(Number), 4]);
    expect(ranks(second.buildDir, 'find-skills')).toEqual([2, expect.any(Number), 4]);
    expect(ranks(first.buildDir, 'find-skills')).toEqual([1, expect.any(Number), 4]);
    // Three plugins are left: "of 3" for a plugin whose page was not rendered for it.
    expect(ranks(first.buildDir, 'github-plugin')?.[2]).toBe(4);
    expect(ranks(second.buildDir, 'github-plugin')?.[2]).toBe(3);
    expect(readFileSync(page(second.buildDir, `listings/${CHANGED}`), 'utf8')).toContain(`data-ranks="/ranks/${rankPart(CHANGED)}.json"`);
  });

  it('carries an owner page whose rank among owners moved while its listings did not, and its part has the new rank', () => {
    const ownerRanks = (build: string, owner: string) =>
      (JSON.parse(readFileSync(join(build, 'site', 'ranks', `${rankPart(owner)}.json`), 'utf8')) as RankPart).owners[owner];
    // One more owner of MCP servers: affaan-m's rank among them is "of N + 1"; its listings did not change.
    const moved = ownerNames(second.buildDir).filter(
      (owner) =>
        !['vercel-labs', 'anthropics'].includes(owner) &&
        JSON.stringify(ownerRanks(first.buildDir, owner)) !== JSON.stringify(ownerRanks(second.buildDir, owner)),
    );
    expect(moved.length).toBeGreaterThan(0);
    for (const owner of moved) {
      expect(statSync(page(second.buildDir, `owners/${owner}`)).ino, owner).toBe(statSync(page(first.buildDir, `owners/${owner}`)).ino);
      expect(readFileSync(page(second.buildDir, `owners/${owner}`), 'utf8')).toContain(`data-ranks="/ranks/${rankPart(owner)}.json" data-owner="${owner}"`);
    }
  });

  it('switches only once the build is complete, and never modifies the build it replaces', async () => {
    expect(servingDuringSecond).toBe(first.buildDir);
    expect(currentBuild(buildDirs(dataDir))).toBe(second.buildDir);
    expect(await snapshot(join(first.buildDir, 'site'))).toEqual(firstFiles);
  });

  it('a failed incremental build leaves the build being served as it was', async () => {
    const served = await snapshot(join(second.buildDir, 'site'));
    const failing: Stage = {
      name: 'failing',
      run: async () => {
        throw new Error('disk full');
      },
    };
    const third = records
      .filter((record) => record.slug !== REMOVED)
      .map((record) => (record.slug === 'dify' ? { ...record, description: 'Changed once more.' } : record));
    await expect(
      runBuild({ dataDir, exportPath: writeExport(join(dir, 'export-3'), third), baseUrl: BASE, quiet: true, stages: [INDEX_STAGE, SITE_STAGE, failing] }),
    ).rejects.toThrow('disk full');
    expect(currentBuild(buildDirs(dataDir))).toBe(second.buildDir);
    expect(
      readdirSync(buildDirs(dataDir).buildsDir)
        .map((name) => join(buildDirs(dataDir).buildsDir, name))
        .sort(),
    ).toEqual([first.buildDir, second.buildDir].sort());
    expect(await snapshot(join(second.buildDir, 'site'))).toEqual(served);
  }, 240_000);
});
