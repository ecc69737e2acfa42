// The keyword index reuses a previous build's per-listing terms (build/keyword-term-cache.ts): the index it writes is
// byte for byte the one made by tokenizing every listing; a listing whose texts changed is tokenized anew, a name
// that joins new words still changes the word pairs of unchanged descriptions, and terms written by other code, or a
// damaged file, are not used at all.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeywordIndexThread, type TermReuse } from '../../build/keyword-index-thread.ts';
import { readTermCache, termKey } from '../../build/keyword-term-cache.ts';
import { fieldTexts, KeywordIndexBuilder, type SearchableListing } from '../../src/search/index-builder.ts';
import { writeKeywordIndex } from '../../src/search/index-file.ts';
import { sampleRecords, tempDir } from '../support/fixtures.ts';

const BATCHES = { batch: 10, inFlight: 2 };
const before: SearchableListing[] = sampleRecords(40).map((record, i) => ({
  ...record,
  // Listing 3's description holds "smoke checker" as two words: no name joins them (yet).
  description: i === 3 ? 'Runs the smoke checker over a release.' : record.description,
  categories: [record.category, ...(record.categories ?? [])],
}));
/** One description rewritten; one name now joins "smoke" and "checker", so listing 3's unchanged description gains a pair. */
const after: SearchableListing[] = before.map((listing, i) =>
  i === 5 ? { ...listing, description: 'Rewritten: drafts release notes.' } : i === 9 ? { ...listing, name: 'smoke-checker' } : listing,
);
const popularity = Float32Array.from(after, (_, doc) => ((doc * 7919) % 1000) / 1000);

const files = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );

/** The index over `listings` in one thread, every listing tokenized. */
function tokenizedIndex(listings: SearchableListing[]): string {
  const dir = tempDir('keyword-terms-full-');
  const builder = new KeywordIndexBuilder();
  for (const listing of listings) builder.addName(listing.name);
  for (const listing of listings) builder.add(listing);
  writeKeywordIndex(dir, builder.finish(popularity));
  return dir;
}

/** The index over `listings` on the worker with a term cache; what it reused. */
async function threadedIndex(listings: SearchableListing[], termCache: { previous?: string; out: string; fingerprint: string }) {
  const dir = tempDir('keyword-terms-thread-');
  const thread = new KeywordIndexThread({ ...BATCHES, termCache });
  try {
    for (const listing of listings) thread.addName(listing.name);
    for (const listing of listings) await thread.add(listing);
    await thread.finish(popularity, dir);
    await thread.whenWritten();
  } finally {
    await thread.close();
  }
  return { dir, reuse: thread.termReuse as TermReuse };
}

describe('the keyword term cache', () => {
  it('reuses the terms of unchanged listings and writes the index and terms a full tokenization writes', async () => {
    const dir = tempDir('keyword-terms-');
    const first = await threadedIndex(before, { out: join(dir, 'a.bin'), fingerprint: 'code-1' });
    expect(first.reuse).toEqual({ reused: 0, tokenized: before.length, unused: 'none given' });

    const second = await threadedIndex(after, { previous: join(dir, 'a.bin'), out: join(dir, 'b.bin'), fingerprint: 'code-1' });
    // The changed description and the renamed listing are tokenized anew; every other listing is reused.
    expect(second.reuse).toEqual({ reused: after.length - 2, tokenized: 2 });
    expect(files(second.dir)).toEqual(files(tokenizedIndex(after)));
    // Listing 3's description pair "smoke checker" is in the index only through the new name.
    expect(readFileSync(join(second.dir, 'terms.txt'), 'utf8')).toContain('smokecheck');

    // The terms kept are those of the listings built, whether reused or not: a build from nothing writes the same.
    const fresh = await threadedIndex(after, { out: join(dir, 'c.bin'), fingerprint: 'code-1' });
    expect(readFileSync(join(dir, 'b.bin'))).toEqual(readFileSync(join(dir, 'c.bin')));
    expect(fresh.reuse.reused).toBe(0);
  });

  it('looks a listing up by its texts: a changed text misses, an unchanged one finds its terms', async () => {
    const dir = tempDir('keyword-terms-lookup-');
    await threadedIndex(before, { out: join(dir, 'a.bin'), fingerprint: 'code-1' });
    const cache = readTermCache(join(dir, 'a.bin'), 'code-1')!;
    expect(cache.size).toBe(before.length);
    const builder = new KeywordIndexBuilder();
    const kept = cache.get(termKey(fieldTexts(before[0]!)))!;
    const made = builder.listingTerms(before[0]!);
    expect({ ...kept, packed: Array.from(kept.packed) }).toEqual({ ...made, packed: Array.from(made.packed) });
    expect(cache.get(termKey(fieldTexts(after[5]!)))).toBeUndefined();
  });

  it('reuses nothing written by other code, or damaged', async () => {
    const dir = tempDir('keyword-terms-invalid-');
    await threadedIndex(before, { out: join(dir, 'a.bin'), fingerprint: 'code-1' });
    const reasons: string[] = [];
    expect(readTermCache(join(dir, 'a.bin'), 'code-2', (why) => reasons.push(why))).toBeUndefined();
    const other = await threadedIndex(after, { previous: join(dir, 'a.bin'), out: join(dir, 'b.bin'), fingerprint: 'code-2' });
    expect(other.reuse).toEqual({ reused: 0, tokenized: after.length, unused: 'written by other code' });
    expect(files(other.dir)).toEqual(files(tokenizedIndex(after)));

    const bytes = readFileSync(join(dir, 'a.bin'));
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
    writeFileSync(join(dir, 'damaged.bin'), bytes);
    writeFileSync(join(dir, 'truncated.bin'), readFileSync(join(dir, 'a.bin')).subarray(0, 200));
    expect(readTermCache(join(dir, 'damaged.bin'), 'code-1', (why) => reasons.push(why))).toBeUndefined();
    expect(readTermCache(join(dir, 'truncated.bin'), 'code-1', (why) => reasons.push(why))).toBeUndefined();
    expect(readTermCache(join(dir, 'missing.bin'), 'code-1', (why) => reasons.push(why))).toBeUndefined();
    expect(reasons).toEqual(['written by other code', 'damaged', 'damaged', 'none kept']);
  });
});
