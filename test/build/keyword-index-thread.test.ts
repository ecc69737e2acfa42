// The index stage builds the keyword index on a worker thread (build/keyword-index-thread.ts): the files it writes
// are byte for byte those of a KeywordIndexBuilder run in one thread over the same listings, and a worker that fails
// fails the build with its reason instead of leaving it waiting.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeywordIndexThread } from '../../build/keyword-index-thread.ts';
import { KeywordIndexBuilder, type SearchableListing } from '../../src/search/index-builder.ts';
import { writeKeywordIndex } from '../../src/search/index-file.ts';
import { sampleRecords, tempDir } from '../support/fixtures.ts';

/** Small batches, few in flight: several batches, names sent in parts, and the wait for the worker are exercised. */
const BATCHES = { batch: 10, inFlight: 2 };
const listings: SearchableListing[] = sampleRecords(60).map((record) => ({ ...record, categories: [record.category, ...(record.categories ?? [])] }));
const popularity = Float32Array.from(listings, (_, doc) => ((doc * 7919) % 1000) / 1000);

const files = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );

describe('the keyword index thread', () => {
  it('writes the index a KeywordIndexBuilder makes in one thread, byte for byte', async () => {
    expect(listings.length).toBeGreaterThan(BATCHES.batch * 10 * 2);
    const inProcess = tempDir('keyword-in-process-');
    const builder = new KeywordIndexBuilder();
    for (const listing of listings) builder.addName(listing.name);
    for (const listing of listings) builder.add(listing);
    writeKeywordIndex(inProcess, builder.finish(popularity));

    const threaded = tempDir('keyword-thread-');
    const thread = new KeywordIndexThread(BATCHES);
    try {
      for (const listing of listings) thread.addName(listing.name);
      for (const listing of listings) await thread.add(listing);
      await thread.finish(popularity, threaded);
      await thread.whenWritten();
    } finally {
      await thread.close();
    }
    const expected = files(inProcess);
    expect(Object.keys(expected)).toEqual(['index.json', 'postings.bin', 'terms.txt']);
    expect(files(threaded)).toEqual(expected);
  });

  it('fails with the worker’s reason when the worker cannot write the index', async () => {
    const dir = tempDir('keyword-thread-fail-');
    const notAFolder = join(dir, 'file');
    writeFileSync(notAFolder, '');
    const thread = new KeywordIndexThread();
    try {
      for (const listing of listings.slice(0, 10)) await thread.add(listing);
      await thread.finish(popularity.subarray(0, 10), join(notAFolder, 'index'));
      await expect(thread.whenWritten()).rejects.toThrow(/keyword index worker failed: .*(ENOTDIR|EEXIST)/);
    } finally {
      await thread.close();
    }
  });
});
