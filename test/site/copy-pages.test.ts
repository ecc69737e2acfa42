// Guarantees the listing pages of copy groups in the embedded snapshot's build: a copy's page says "Copy of" its
// origin with a link to it, a modified copy's page also shows the difference of the two texts, and an origin's
// page lists every listing that copies it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRuntimeListings } from '../../src/catalog-view/catalog-view.ts';
import type { StoredListing } from '../../src/domain/listing/listing-view.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { sharedBuildDir } from '../support/shared-build.ts';
import { decodeEntities, textOf } from './site-expectations.ts';

let buildDir: string;
const listings: StoredListing[] = [];
beforeAll(async () => {
  buildDir = await sharedBuildDir();
  for await (const listing of readRuntimeListings(join(buildDir, 'runtime'))) listings.push(listing);
});

const html = (slug: string) => readFileSync(join(buildDir, 'site', 'listings', `${slug}.html`), 'utf8');
const byId = (id: string) => listings.find((listing) => listing.id === id)!;

describe('copy pages', () => {
  it("every copy's page names its origin and every origin's page its copies, whichever render process made them", () => {
    // The site stage shares pages out between processes by owner; a copy group spans owners.
    const copies = listings.filter((listing) => listing.copyOf);
    expect(copies.length).toBeGreaterThan(100);
    const missing = copies.filter((copy) => !html(copy.slug).includes(`href="${SITE_PATHS.listing(byId(copy.copyOf!).slug)}"`));
    expect(missing.map((copy) => copy.id)).toEqual([]);
    const origins = listings.filter((listing) => listing.copies);
    const unlisted = origins.filter((origin) => !html(origin.slug).includes('id="copies"'));
    expect(unlisted.map((origin) => origin.id)).toEqual([]);
  });

  it('an exact copy says "Copy of" its origin and links to it', () => {
    const copy = byId('skill:davila7/claude-code-templates#pdf-official');
    expect(copy).toMatchObject({ copyOf: 'skill:anthropics/skills#pdf', copyKind: 'exact' });
    const page = html(copy.slug);
    expect(textOf(page)).toContain('Copy of pdf (anthropics/skills)');
    expect(page).toContain(`href="${SITE_PATHS.listing('pdf')}"`);
    expect(page).not.toContain('id="copy-diff"');
  });

  it('a modified copy says so and shows what differs from the origin', () => {
    const copy = listings.find((listing) => listing.copyKind === 'modified' && listing.description !== byId(listing.copyOf!).description)!;
    const origin = byId(copy.copyOf!);
    const page = html(copy.slug);
    expect(textOf(page)).toContain(`Modified copy of ${origin.name}`);
    expect(page).toContain('href="#copy-diff"');
    const diff = decodeEntities(/<details class="diff" id="copy-diff" open>[\s\S]*?<code>([\s\S]*?)<\/code>/.exec(page)![1]!);
    expect(diff.split('\n').some((line) => line.startsWith('- ') || line.startsWith('+ '))).toBe(true);
    expect(diff).toContain(copy.description.split('\n')[0]!.slice(0, 40));
  });

  it("an origin's page lists where else it is published", () => {
    const origin = byId('skill:anthropics/skills#webapp-testing');
    const copies = listings.filter((listing) => listing.copyOf === origin.id);
    expect(origin.copies).toBe(copies.length);
    expect(copies.map((copy) => copy.repo)).toEqual(expect.arrayContaining(['ComposioHQ/awesome-claude-skills', 'sickn33/antigravity-awesome-skills']));
    const page = html(origin.slug);
    expect(textOf(page)).toContain(`Also published as (${copies.length})`);
    for (const copy of copies) expect(page).toContain(`href="${SITE_PATHS.listing(copy.slug)}"`);
  });
});
