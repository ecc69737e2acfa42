// Guarantees a listing page's inputs hash covers everything the page shows: over a catalog whose pages were all
// written, a change of the listing itself, of its stored files, of its owner's listing count, of its copy group's
// origin or of one of its copies makes the renderer render that page again (and its owner's page, which lists it),
// and a catalog built again unchanged renders nothing. The renderer's plan is run in this process (loadPageData),
// over runtimes the index stage writes; no page is rendered.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { fileLines } from '../../src/artifacts/file-lines.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { loadPageData } from '../../src/page-model/page-data.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';

const BASE = 'http://catalog.test';
/** A skill with a stored SKILL.md. */
const WITH_FILES = 'pdf';
/** An exact copy of it, whose page shows the origin's name. */
const COPY = 'pdf-official';

describe('page inputs', () => {
  const dir = tempDir('catalog-page-inputs-');
  const records = sampleRecords(3, [WITH_FILES, COPY]);
  const previousInputs = join(dir, 'inputs-a.tsv');
  const previousSite = join(dir, 'site-a');
  let builds = 0;

  /** The runtime the index stage writes for `next`; `edit` changes the export before it is read. */
  async function runtimeOf(next: ListingRecord[], edit?: (exportDir: string) => void): Promise<string> {
    const name = `b${builds++}`;
    const exportPath = writeExport(join(dir, `export-${name}`), next);
    edit?.(dirname(exportPath));
    const result = await runBuild({ dataDir: join(dir, name), exportPath, baseUrl: BASE, quiet: true, stages: [INDEX_STAGE] });
    return join(result.buildDir, 'runtime');
  }

  /** The listing and owner pages a renderer renders over `next`, compared with the first catalog's pages. */
  async function rendered(next: ListingRecord[], edit?: (exportDir: string) => void): Promise<{ listings: string[]; owners: string[]; runtime: string }> {
    const runtime = await runtimeOf(next, edit);
    const data = loadPageData(runtime, BASE, { out: join(dir, `inputs-${builds}.tsv`), previous: { path: previousInputs, site: previousSite } });
    return { listings: data.renderListings.map((listing) => listing.slug).sort(), owners: [...data.renderOwners].sort(), runtime };
  }
  /** A listing's line of a runtime's listings.jsonl. */
  const lineOf = (runtime: string, slug: string) =>
    [...fileLines(join(runtime, 'listings.jsonl'))].map(String).find((line) => line.includes(`"slug":"${slug}"`));

  const edited = (slug: string, change: Partial<ListingRecord>) => records.map((record) => (record.slug === slug ? { ...record, ...change } : record));
  const ownerOf = (slug: string) =>
    records
      .find((record) => record.slug === slug)!
      .repo.split('/')[0]!
      .toLowerCase();

  let first: string;
  beforeAll(async () => {
    first = await runtimeOf(records);
    const data = loadPageData(first, BASE, { out: previousInputs });
    expect(data.byId.get(records.find((record) => record.slug === COPY)!.id)?.copyOf).toBe(records.find((record) => record.slug === WITH_FILES)!.id);
    // Every page of the first catalog is in its site, as a build leaves it.
    for (const line of fileLines(previousInputs)) {
      const file = join(previousSite, line.toString().split('\t')[0]!);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '');
    }
  }, 120_000);

  it('renders nothing for the same catalog', async () => {
    expect(await rendered(records)).toMatchObject({ listings: [], owners: [] });
  });

  it("renders a listing's page again when the listing changes, and its owner's page", async () => {
    const slug = 'find-skills';
    expect(await rendered(edited(slug, { description: 'Finds skills, said otherwise.' }))).toMatchObject({ listings: [slug], owners: [ownerOf(slug)] });
  });

  it('renders it again when its stored files change and the listing does not', async () => {
    // As many bytes as before, so that the audit's figures in the line stay the same.
    const skillMd = (exportDir: string) => join(exportDir, 'files', WITH_FILES, 'SKILL.md');
    const changed = await rendered(records, (exportDir) => writeFileSync(skillMd(exportDir), readFileSync(skillMd(exportDir), 'utf8').replace('PDF', 'FDP')));
    // The line is the same: only the files say the page changed.
    expect(lineOf(changed.runtime, WITH_FILES)).toBe(lineOf(first, WITH_FILES));
    expect(changed.listings).toContain(WITH_FILES);
  });

  it('renders every page of an owner whose listing count changes', async () => {
    const owner = records.find((record) => record.slug === COPY)!;
    const next = [
      ...records,
      {
        ...owner,
        id: `${owner.id}-second`,
        slug: 'pdf-official-second',
        name: 'Second of its owner',
        description: 'Nothing like any other listing here at all.',
        files: [],
      },
    ];
    const changed = await rendered(next);
    expect(changed.listings).toEqual([COPY, 'pdf-official-second'].sort());
  });

  it("renders a copy's page when its origin changes, and an origin's when a copy changes", async () => {
    const origin = await rendered(edited(WITH_FILES, { name: 'pdf tools' }));
    expect(origin.listings).toEqual([COPY, WITH_FILES].sort());
    const copy = await rendered(edited(COPY, { name: 'pdf re-hosted' }));
    expect(copy.listings).toEqual([COPY, WITH_FILES].sort());
  });
});
