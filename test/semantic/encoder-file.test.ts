// Guarantees the shim keeps the default encoder's table out of its memory: the semantic index reads its rows
// from the build's table.i8 (a table loaded whole would keep embedding after a close), embeds as the table in
// memory does, keeps it for a snapshot whose build links the same file, and releases it when a snapshot with
// another table file replaces it or the index closes (a released table embeds every text to zeros, so a request
// still holding it falls back to keywords).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  it('reads the table from the file, embeds as the table in memory does, and releases the file on swap to another table and on close', async () => {
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

    // A rebuild swapped in whose build links the same table: the table stays open, for both snapshots' requests.
    const second = loadSnapshot(buildDir);
    snapshots.push(second);
    expect(await index.load(second)).toBe('ready');
    expect(index.ready(first)).toBeUndefined();
    const secondEmbed = index.ready(second)!.embed;
    expect(await secondEmbed(text)).toEqual(expected);
    expect(await firstEmbed(text)).toEqual(expected);

    // One whose table is another file (the same bytes, copied): that table serves, the one before is released.
    const copy = join(mkdtempSync(join(tmpdir(), 'catalog-encoder-file-')), 'build');
    execFileSync('cp', ['-al', buildDir, copy]);
    const copiedModel = join(copy, 'runtime', EMBEDDINGS_DIR, MODEL_SUBDIR);
    rmSync(copiedModel, { recursive: true });
    cpSync(modelDir, copiedModel, { recursive: true });
    const third = loadSnapshot(copy);
    snapshots.push(third);
    expect(await index.load(third)).toBe('ready');
    const thirdEmbed = index.ready(third)!.embed;
    expect(await thirdEmbed(text)).toEqual(expected);
    expect(await secondEmbed(text)).toEqual(zeros);

    await index.close();
    expect(await thirdEmbed(text)).toEqual(zeros);
  });
});
