// Guarantees the shim keeps the default encoder's table out of its memory: the semantic index reads its rows
// from the build's table.i8 (the file stays open while the snapshot is served), embeds as the table in memory
// does, and releases the file when another snapshot replaces it or the index closes (no descriptor left behind).
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR } from '../../src/artifacts/embeddings.ts';
import { loadStaticEncoder, type StaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { SemanticIndex } from '../../server/search/semantic-index.ts';

const buildDir = await sharedBuildDir();
const modelDir = join(buildDir, 'runtime', EMBEDDINGS_DIR, MODEL_SUBDIR);
const tablePath = join(modelDir, 'table.i8');

/**
 * Descriptors of this process open on the build's table file. Other files' servers run in the same worker process
 * (vitest forks without isolation) and may hold their own, so the test follows the descriptors it saw opened.
 */
function openTables(): Set<string> {
  const open = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === tablePath) open.add(fd);
    } catch {
      // Closed between the listing and the readlink.
    }
  }
  return open;
}

/** The descriptors on the table opened since `before`. */
function openedSince(before: Set<string>): string[] {
  return [...openTables()].filter((fd) => !before.has(fd));
}

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
    const before = openTables();
    const index = new SemanticIndex();
    const first = loadSnapshot(buildDir);
    snapshots.push(first);
    expect(await index.load(first)).toBe('ready');
    const firstFds = openedSince(before);
    expect(firstFds).toHaveLength(1);
    const text = 'will it rain tomorrow where I live';
    expect(await index.ready(first)!.embed(text)).toEqual(inMemory.embed(text));

    // A rebuild swapped in: the new snapshot's table replaces the old one, which is closed.
    const second = loadSnapshot(buildDir);
    snapshots.push(second);
    expect(await index.load(second)).toBe('ready');
    expect(index.ready(first)).toBeUndefined();
    const secondFds = openedSince(before);
    expect(secondFds).toHaveLength(1);
    expect(secondFds).not.toEqual(firstFds);
    expect(await index.ready(second)!.embed(text)).toEqual(inMemory.embed(text));

    await index.close();
    expect(openedSince(before)).toEqual([]);
  });
});
