// Guarantees the shim keeps the default encoder's table out of its memory: the semantic index reads its rows
// from the build's table.i8 (a table loaded whole would keep embedding after a close), embeds as the table in
// memory does, and releases the file when another snapshot replaces it or the index closes (a released table
// embeds every text to zeros, so a request still holding it falls back to keywords).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR } from '../../src/artifacts/embeddings.ts';
import { loadStaticEncoder, type StaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';

const buildDir = await sharedBuildDir();
const modelDir = join(buildDir, 'runtime', EMBEDDINGS_DIR, MODEL_SUBDIR);

describe('the semantic index of the shim', () => {
  const snapshots: Snapshot[] = [];
  let inMemory: StaticEncoder;
  beforeAll(async () => {
    inMemory = await loadStaticEncoder(modelDir);
  });
  afterAll(() => {
    for (const snapshot of snapshots) snapshot.store.close();
  });

  it('reads the table from the file, embeds as the table in memory does, and releases the file on swap and close', async () => {
    const text = 'will it rain tomorrow where I live';
    const expected = inMemory.embed(text);
    expect(expected.some((x) => x !== 0)).toBe(true);
    const zeros = new Float32Array(expected.length);
    const index = new SemanticIndex();

    const first = loadSnapshot(buildDir);
    snapshots.push(first);
    expect(await index.load(first)).toBe('ready');
    const firstEmbed = index.ready(first)!.embed;
    expect(await firstEmbed(text)).toEqual(expected);

    // A rebuild swapped in: the new snapshot's table serves, the old one is released.
    const second = loadSnapshot(buildDir);
    snapshots.push(second);
    expect(await index.load(second)).toBe('ready');
    expect(index.ready(first)).toBeUndefined();
    const secondEmbed = index.ready(second)!.embed;
    expect(await secondEmbed(text)).toEqual(expected);
    expect(await firstEmbed(text)).toEqual(zeros);

    await index.close();
    expect(await secondEmbed(text)).toEqual(zeros);
  });
});
