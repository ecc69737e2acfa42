// Guarantees archived and moved listings are told apart by what the data says: a repository named "-archived", a
// name marked "(Archived)", or a same-named twin in "<repo>-archived"; in the embedded snapshot, the servers that
// moved out of modelcontextprotocol/servers are the ones marked there.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archivedReason, archiveIndex, liveSuccessors, type ArchivableListing } from '../../src/domain/listing/archived.ts';

describe('archivedReason', () => {
  const listings: ArchivableListing[] = [
    { type: 'mcp', repo: 'acme/servers', name: 'PostgreSQL' },
    { type: 'mcp', repo: 'acme/servers-archived', name: 'PostgreSQL' },
    { type: 'mcp', repo: 'acme/servers', name: 'SQLite (Archived)' },
    { type: 'mcp', repo: 'acme/servers', name: 'Everything' },
    { type: 'skill', repo: 'acme/servers', name: 'Git' },
    { type: 'mcp', repo: 'acme/servers-archived', name: 'Git' },
  ];
  const index = archiveIndex(listings);
  it.each([
    [listings[0]!, 'moved to acme/servers-archived'],
    [listings[1]!, 'its repository, acme/servers-archived, is archived'],
    [listings[2]!, 'marked archived by its source'],
    [listings[3]!, undefined],
    // A twin of another type is another listing.
    [listings[4]!, undefined],
  ])('%j → %j', (listing, reason) => {
    expect(archivedReason(listing, index)).toBe(reason);
  });
});

describe('the embedded snapshot', () => {
  it('marks the servers that moved out of modelcontextprotocol/servers, and leaves its live ones alone', () => {
    const records = readFileSync('data/listings.jsonl', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ArchivableListing & { id: string });
    const index = archiveIndex(records);
    const moved = records
      .filter((r) => r.repo === 'modelcontextprotocol/servers' && archivedReason(r, index) === 'moved to modelcontextprotocol/servers-archived')
      .map((r) => r.name);
    expect(moved).toEqual(expect.arrayContaining(['PostgreSQL', 'SQLite', 'Sentry', 'Puppeteer']));
    const live = records.filter((r) => r.repo === 'modelcontextprotocol/servers' && !archivedReason(r, index)).map((r) => r.name);
    expect(live).toEqual(expect.arrayContaining(['Everything', 'Fetch', 'Git', 'Time']));
  });
});

describe('what the record says (catalog collect: GitHub archived and renamed repositories)', () => {
  const listings: ArchivableListing[] = [
    { type: 'mcp', repo: 'acme/old-name', name: 'Tool', movedTo: 'acme/new-name' },
    { type: 'mcp', repo: 'acme/new-name', name: 'Tool' },
    { type: 'mcp', repo: 'acme/frozen', name: 'Frozen', archived: true },
    { type: 'mcp', repo: 'acme/gone', name: 'Gone', movedTo: 'acme/elsewhere' },
    { type: 'mcp', repo: 'acme/twice', name: 'Twice', movedTo: 'acme/frozen2' },
    { type: 'mcp', repo: 'acme/frozen2', name: 'Twice', archived: true },
  ];
  const index = archiveIndex(listings);
  it('marks a moved repository with where it went, an archived one as archived', () => {
    expect(listings.map((l) => archivedReason(l, index))).toEqual([
      'moved to acme/new-name',
      undefined,
      'its repository, acme/frozen, is archived',
      'moved to acme/elsewhere',
      'moved to acme/frozen2',
      'its repository, acme/frozen2, is archived',
    ]);
  });
  it('finds the live successor of a moved listing only where the catalog lists it, live', () => {
    expect(liveSuccessors(listings)).toEqual(new Map([[0, 1]]));
  });
});
