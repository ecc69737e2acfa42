// Guarantees the copy groups: listings with the same SKILL.md (whitespace and line endings aside), or the same type,
// name and description, are one group; a same-named listing whose description is at least NEAR_COPY_THRESHOLD alike
// is a modified copy; each group's origin follows the documented rule; and on the embedded snapshot the originals of
// anthropics/skills are the origins of the copies aggregators re-host; on a reviewed sample of 40 of the snapshot's
// groups (test/build/copy-origin-review.json) the rule names the reviewer's origin in at least 90 % of them once the
// members' first commits are known.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeCopyGroups, pickOrigin, jaccard, NEAR_COPY_THRESHOLD, wordBigrams, type CopyCandidate } from '../../build/copy-groups.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';

const DESCRIPTION = 'Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents.';

function candidate(id: string, partial: Partial<CopyCandidate> = {}): CopyCandidate {
  return {
    id,
    type: 'skill',
    name: 'pdf',
    description: DESCRIPTION,
    installs: 0,
    installsReal: true,
    stars: 0,
    starsReal: true,
    updatedAt: '2026-01-01T00:00:00Z',
    ...partial,
  };
}

/** origin id and kind per id, from a computation. */
function byId(listings: CopyCandidate[]): Map<string, { origin: string; kind: string | undefined } | undefined> {
  const { members } = computeCopyGroups(listings);
  return new Map(listings.map((listing, i) => [listing.id, members[i] && { origin: listings[members[i].origin]!.id, kind: members[i].kind }]));
}

describe('exact copies', () => {
  it('groups the same type, name and description, and names the most installed the origin', () => {
    const groups = byId([
      candidate('skill:a/x#pdf', { installs: 10 }),
      candidate('skill:b/x#b-pdf', { installs: 900 }),
      candidate('skill:c/x#c-pdf', { installs: 5 }),
    ]);
    expect(groups.get('skill:a/x#pdf')).toEqual({ origin: 'skill:b/x#b-pdf', kind: 'exact' });
    expect(groups.get('skill:b/x#b-pdf')).toEqual({ origin: 'skill:b/x#b-pdf', kind: undefined });
  });

  it('groups the same SKILL.md after normalising line endings and whitespace, whatever the descriptions', () => {
    const groups = byId([
      candidate('skill:a/x#one', { name: 'one', description: 'first', skillMd: '# Title\r\n\r\nDo  the thing.\r\n', installs: 2 }),
      candidate('skill:b/x#two', { name: 'two', description: 'second', skillMd: '# Title\n\nDo the thing.', installs: 1 }),
    ]);
    expect(groups.get('skill:b/x#two')).toEqual({ origin: 'skill:a/x#one', kind: 'exact' });
  });

  it('groups a renamed copy by a shared description of 60 characters or more, never by an empty one', () => {
    const groups = byId([
      candidate('skill:a/x#pdf', { installs: 9 }),
      candidate('skill:b/x#pdf-official', { name: 'pdf-official' }),
      candidate('skill:c/x#empty', { name: 'tool', description: '' }),
      candidate('skill:d/x#empty2', { name: 'tool', description: '' }),
      candidate('mcp:e/x#pdf', { type: 'mcp' }),
    ]);
    expect(groups.get('skill:b/x#pdf-official')).toEqual({ origin: 'skill:a/x#pdf', kind: 'exact' });
    expect(groups.get('skill:c/x#empty')).toBeUndefined();
    expect(groups.get('mcp:e/x#pdf')).toBeUndefined();
  });
});

describe('modified copies', () => {
  it('measures similarity as the Jaccard index of word bigrams', () => {
    expect(jaccard(wordBigrams('a b c d'), wordBigrams('a b c e'))).toBeCloseTo(2 / 4);
    expect(jaccard(wordBigrams('Same words here'), wordBigrams('same  WORDS here'))).toBe(1);
  });

  it('joins a same-named listing at or above the threshold as a modified copy, and leaves one below it alone', () => {
    const edited = `${DESCRIPTION} Works offline.`;
    const unrelated = 'Fill PDF forms from spreadsheets with field mapping, validation and a preview of every page.';
    expect(jaccard(wordBigrams(DESCRIPTION), wordBigrams(edited))).toBeGreaterThanOrEqual(NEAR_COPY_THRESHOLD);
    expect(jaccard(wordBigrams(DESCRIPTION), wordBigrams(unrelated))).toBeLessThan(NEAR_COPY_THRESHOLD);
    const groups = byId([
      candidate('skill:a/x#pdf', { installs: 5 }),
      candidate('skill:b/x#b-pdf', { description: edited }),
      candidate('skill:c/x#c-pdf', { description: unrelated }),
    ]);
    expect(groups.get('skill:b/x#b-pdf')).toEqual({ origin: 'skill:a/x#pdf', kind: 'modified' });
    expect(groups.get('skill:c/x#c-pdf')).toBeUndefined();
  });

  it('calls two listings with one description but different SKILL.md files modified copies', () => {
    const groups = byId([
      candidate('skill:a/x#pdf', { installs: 5, skillMd: '# PDF\nStep one.\nStep two.' }),
      candidate('skill:b/x#b-pdf', { skillMd: '# PDF\nStep one.\nStep three.' }),
    ]);
    expect(groups.get('skill:b/x#b-pdf')).toEqual({ origin: 'skill:a/x#pdf', kind: 'modified' });
  });
});

describe('the origin rule', () => {
  it.each([
    [
      'a member the other owners name beats more installs',
      [
        candidate('skill:vercel-labs/x#deploy', { name: 'vercel-deploy', installs: 5 }),
        candidate('skill:someone/x#vercel-deploy', { name: 'vercel-deploy', installs: 500 }),
      ],
      'skill:vercel-labs/x#deploy',
    ],
    [
      'a group whose files are all dated: the first committed beats more installs',
      [
        candidate('skill:a/x#pdf', { installs: 500, firstCommitAt: '2026-01-14T17:48:08Z' }),
        candidate('skill:b/x#pdf', { installs: 5, firstCommitAt: '2025-10-17T09:09:35Z' }),
      ],
      'skill:b/x#pdf',
    ],
    [
      'a member the other owners name beats an earlier first commit',
      [
        candidate('skill:vercel-labs/x#deploy', { name: 'vercel-deploy', firstCommitAt: '2026-03-01T00:00:00Z' }),
        candidate('skill:someone/x#vercel-deploy', { name: 'vercel-deploy', firstCommitAt: '2026-01-01T00:00:00Z' }),
      ],
      'skill:vercel-labs/x#deploy',
    ],
    [
      'one undated member: dates do not decide, installs do',
      [candidate('skill:a/x#pdf', { installs: 500 }), candidate('skill:b/x#pdf', { installs: 5, firstCommitAt: '2025-10-17T09:09:35Z' })],
      'skill:a/x#pdf',
    ],
    [
      'measured installs beat synthetic ones',
      [candidate('skill:a/x#pdf', { installs: 5 }), candidate('skill:b/x#pdf', { installs: 500, installsReal: false })],
      'skill:a/x#pdf',
    ],
    [
      'then measured stars',
      [candidate('skill:a/x#pdf', { installsReal: false, stars: 3 }), candidate('skill:b/x#pdf', { installsReal: false, stars: 30 })],
      'skill:b/x#pdf',
    ],
    [
      'then the one changed longest ago',
      [candidate('skill:a/x#pdf', { updatedAt: '2026-02-01T00:00:00Z' }), candidate('skill:b/x#pdf', { updatedAt: '2025-02-01T00:00:00Z' })],
      'skill:b/x#pdf',
    ],
    ['then the smaller id', [candidate('skill:b/x#pdf'), candidate('skill:a/x#pdf')], 'skill:a/x#pdf'],
  ])('%s', (_, listings, origin) => {
    expect(byId(listings).get(listings[1]!.id)?.origin).toBe(origin);
  });
});

describe('the embedded snapshot', () => {
  const data = join(import.meta.dirname, '../../data');
  const records = readFileSync(join(data, 'listings.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ListingRecord);
  const listings: CopyCandidate[] = records.map((record) => {
    const path = join(data, 'files', record.slug, 'SKILL.md');
    return {
      id: record.id,
      type: record.type,
      name: record.name,
      description: record.description,
      installs: record.installs,
      installsReal: record.metrics.installs === 'real',
      stars: record.stars,
      starsReal: record.metrics.stars === 'real',
      updatedAt: record.updatedAt,
      skillMd: record.files?.length && existsSync(path) ? readFileSync(path, 'utf8') : undefined,
    };
  });
  const result = computeCopyGroups(listings);
  const groups = new Map(
    listings.map((listing, i) => [listing.id, result.members[i] && { origin: listings[result.members[i].origin]!.id, kind: result.members[i].kind }]),
  );

  it.each([
    ['skill:ComposioHQ/awesome-claude-skills#composiohq-webapp-testing', 'skill:anthropics/skills#webapp-testing'],
    ['skill:ComposioHQ/awesome-claude-skills#composiohq-mcp-builder', 'skill:anthropics/skills#mcp-builder'],
    ['skill:ComposioHQ/awesome-claude-skills#composiohq-canvas-design', 'skill:anthropics/skills#canvas-design'],
    ['skill:ComposioHQ/awesome-claude-skills#composiohq-theme-factory', 'skill:anthropics/skills#theme-factory'],
    ['skill:sickn33/antigravity-awesome-skills#sickn33-webapp-testing', 'skill:anthropics/skills#webapp-testing'],
    ['skill:davila7/claude-code-templates#davila7-skill-creator', 'skill:anthropics/skills#skill-creator'],
    ['skill:davila7/claude-code-templates#pdf-official', 'skill:anthropics/skills#pdf'],
    ['skill:davila7/claude-code-templates#davila7-test-driven-development', 'skill:obra/superpowers#test-driven-development'],
    ['skill:vercel-labs/agent-skills#vercel-labs-vercel-deploy', 'skill:vercel-labs/agent-skills#vercel-labs-vercel-deploy'],
  ])('%s has the origin %s', (id, origin) => {
    expect(groups.get(id)?.origin).toBe(origin);
  });

  it('finds copy groups in about a fifth of the skills, and no origin is itself a copy', () => {
    expect(result.groups).toBeGreaterThan(1500);
    const skills = listings.filter((listing, i) => listing.type === 'skill' && result.members[i]?.kind).length;
    expect(skills / listings.filter((listing) => listing.type === 'skill').length).toBeGreaterThan(0.1);
    for (const member of result.members) if (member) expect(result.members[member.origin]!.kind).toBeUndefined();
  });
});

describe('a reviewed sample of 40 copy groups', () => {
  interface Reviewed {
    origin: string | null;
    members: (CopyCandidate & { firstCommitAt?: string })[];
  }
  const review = JSON.parse(readFileSync(join(import.meta.dirname, 'copy-origin-review.json'), 'utf8')) as { groups: Reviewed[] };
  const agreed = (withDates: boolean) =>
    review.groups.filter((group) => {
      const members = group.members.map(({ firstCommitAt, ...member }) => (withDates ? { ...member, firstCommitAt } : member));
      return members[pickOrigin(members)]!.id === group.origin;
    }).length;

  it('is 40 groups of two or more listings, each judged origin one of its members or undecided', () => {
    expect(review.groups).toHaveLength(40);
    for (const group of review.groups) {
      expect(group.members.length).toBeGreaterThanOrEqual(2);
      if (group.origin !== null) expect(group.members.map((member) => member.id)).toContain(group.origin);
    }
  });

  it("names the judged origin of at least 90 % of the groups from the members' first commits and figures", () => {
    expect(agreed(true) / review.groups.length).toBeGreaterThanOrEqual(0.9);
  });

  it("does better with the first commits than from the snapshot's figures alone", () => {
    expect(agreed(true)).toBeGreaterThan(agreed(false));
  });
});
