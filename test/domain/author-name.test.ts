// Guarantees a listing's author reads as a name: a GitHub URL is its account, another URL its host, a contact in
// brackets is dropped, and a sentence is the repository's owner; over the embedded snapshot no author is a URL or
// an address.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorName, toStoredListing } from '../../src/domain/listing/listing-view.ts';
import { ListingRecordSchema } from '../../src/domain/schemas.ts';

describe('authorName', () => {
  it.each([
    ['https://github.com/Jeffallan', 'Jeffallan'],
    ['github.com/vuejs-ai', 'vuejs-ai'],
    ['SerKo <https://github.com/serkodev>', 'SerKo'],
    ['Jeremy Longshore <jeremy@intentsolutions.io>', 'Jeremy Longshore'],
    ['Tom Meschter (tom.meschter@microsoft.com)', 'Tom Meschter'],
    ['https://docs.example.com/team', 'docs.example.com'],
    ['Canvas is powered by Markdown Viewer — the best multi-platform Markdown extension, with diagrams and more', 'markdown-viewer'],
    ['someone@example.com', 'markdown-viewer'],
    ['Anthropic', 'Anthropic'],
    ['currents.dev', 'currents.dev'],
  ])('%j → %j', (author, name) => {
    expect(authorName(author, 'markdown-viewer/skills')).toBe(name);
  });
});

describe('the embedded snapshot', () => {
  it('has 0 authors shown as a URL or an address', () => {
    const records = readFileSync('data/listings.jsonl', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ListingRecordSchema.parse(JSON.parse(line)));
    const urls = records.map((r) => toStoredListing(r, { trending: 0, searchTrend: 0 }).author).filter((a) => /:\/\/|github\.com\/|@/.test(a));
    expect(urls).toEqual([]);
    expect(records.filter((r) => /^(https?:\/\/|github\.com\/)/.test(r.author)).length).toBeGreaterThan(50);
  });
});
