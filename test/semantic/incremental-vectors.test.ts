// Guarantees that the embeddings stage reuses what did not change: a rebuild with a few changed listing texts
// embeds only those texts (vectors are cached by text) and updates a copy of the previous HNSW graph (keys stay
// the texts'), whose search finds the changed listings and keeps recall@10 ≥ 0.95 against exact search; the
// previous build's graph is left as it was; removals past the bound rebuild the graph from scratch; a cache entry a
// crashed run left (files that fail their checks) is never used; and a rebuild whose texts are those of the build
// being replaced, in the same order, links that build's files, which are the bytes it would write itself.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDINGS_DIR } from '../../src/artifacts/embeddings.ts';
import { buildEmbeddings, type EmbeddingsReport } from '../../build/stages/embeddings-stage.ts';
import { HNSW_FILE, HNSW_ROWS_FILE, readHnsw } from '../../src/search/hnsw.ts';
import { readVectors, VECTORS_FILE, type VectorIndex } from '../../src/search/vectors.ts';
import { DEFAULT_ENCODER_DIR, loadStaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { vectorCandidates } from '../../src/search/ranking/fusion.ts';
import { snapshotRecords } from '../support/fixtures.ts';
import { SEMANTIC_QUERIES } from '../../bench/semantic.ts';

const listings = snapshotRecords()
  .slice(0, 1500)
  .map((r) => ({ name: r.name, description: r.description }));
let root: string;
let cacheDir: string;
let runs = 0;

/** A build's runtime directory with these listings (the stage reads only name and description), embedded. */
async function embed(
  records: ReadonlyArray<{ name: string; description: string | null }>,
  previous?: string,
): Promise<{ dir: string; report: EmbeddingsReport }> {
  const runtimeDir = join(root, `build-${++runs}`, 'runtime');
  mkdirSync(runtimeDir, { recursive: true });
  writeFileSync(join(runtimeDir, 'listings.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const report = await buildEmbeddings({ runtimeDir, cacheDir, hnswMinRows: 1000, previous });
  return { dir: join(runtimeDir, EMBEDDINGS_DIR), report };
}

function changed(docs: readonly number[], tag: string) {
  return listings.map((r, doc) => (docs.includes(doc) ? { ...r, description: `${tag} ${doc}: a telescope mount that tracks orbital satellites at night` } : r));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'catalog-incremental-vectors-'));
  cacheDir = join(root, 'cache');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('incremental vectors and graph', () => {
  let first: { dir: string; report: EmbeddingsReport };
  let second: { dir: string; report: EmbeddingsReport };
  const edits = [3, 400, 1200];
  beforeAll(async () => {
    first = await embed(listings);
    second = await embed(changed(edits, 'rewritten'));
  }, 300_000);

  it('embeds only the changed texts and updates a copy of the previous graph', () => {
    expect(first.report).toMatchObject({ vectors: 'embedded', graph: 'built', approximate: 'hnsw' });
    expect(first.report.embedded).toBeGreaterThan(1400);
    expect(second.report).toMatchObject({ vectors: 'embedded', embedded: edits.length, graph: 'updated', approximate: 'hnsw' });
  });

  it('writes the vectors a full embedding writes', async () => {
    const fresh = await loadStaticEncoder(DEFAULT_ENCODER_DIR);
    const vectors = await readVectors(second.dir);
    const again = changed(edits, 'rewritten');
    for (const doc of [...edits, 0, 999]) {
      const q = fresh.embed(`${again[doc]!.name}. ${again[doc]!.description}`);
      expect(vectors.searchSubset(q, [doc], 1)[0]!.score).toBeGreaterThan(0.99);
    }
    fresh.close();
  });

  it('finds the changed listings and keeps recall@10 against exact search', async () => {
    const vectors: VectorIndex = await readVectors(second.dir);
    const ann = (await readHnsw(second.dir, { modelId: vectors.modelId, count: listings.length }))!;
    expect(ann).toBeDefined();
    for (const doc of edits) expect(ann.nearest(vectors.vector(doc), 5)).toContain(doc);
    const encoder = await loadStaticEncoder(DEFAULT_ENCODER_DIR);
    let found = 0;
    for (const text of SEMANTIC_QUERIES) {
      const q = encoder.embed(text);
      const want = vectors.search(q, 10).map((hit) => hit.index);
      const got = new Set(vectorCandidates({ vectors, ann }, q, undefined, 128).slice(0, 10));
      found += want.filter((doc) => got.has(doc)).length;
    }
    encoder.close();
    expect(found / (10 * SEMANTIC_QUERIES.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('leaves the previous build’s graph as it was', async () => {
    const vectors = await readVectors(first.dir);
    expect(await readHnsw(first.dir, { modelId: vectors.modelId, count: listings.length })).toBeDefined();
  });

  it('ignores an entry a crashed run left, and rebuilds the graph when removals pass the bound', async () => {
    // A newer entry whose vectors fail their checksum (a run stopped while writing): never a source of vectors.
    const [entry] = readdirSync(cacheDir).filter((name) => /^[0-9a-f]{64}$/.test(name));
    const crashed = join(cacheDir, 'f'.repeat(64));
    cpSync(join(cacheDir, entry!), crashed, { recursive: true });
    const vectorsDir = readdirSync(crashed).find((name) => name.startsWith('vectors-'))!;
    const file = join(crashed, vectorsDir, 'vectors.i8');
    writeFileSync(file, new Uint8Array(readFileSync(file).length));
    const later = new Date(Date.now() + 60_000);
    utimesSync(crashed, later, later);
    const third = await embed(changed([...edits, 7], 'rewritten'));
    // Only listing 7 is new: the three earlier edits come from the last good entry, not the crashed one.
    expect(third.report).toMatchObject({ embedded: 1, graph: 'updated' });
    // A fifth of the texts replaced: past the bound on removed rows, so the graph is built from scratch.
    const many = [...new Set([...edits, 7, ...Array.from({ length: 300 }, (_, i) => i * 5)])];
    const fourth = await embed(changed(many, 'replaced'));
    expect(fourth.report).toMatchObject({ embedded: many.length, graph: 'built' });
  }, 300_000);
});

describe('a rebuild whose texts are those of the build being replaced', () => {
  const records = listings.map((r, doc) => ({ ...r, installs: doc }));
  let before: { dir: string; report: EmbeddingsReport };
  beforeAll(async () => {
    before = await embed(records);
  }, 300_000);
  const inode = (dir: string, file: string) => statSync(join(dir, file)).ino;

  it('links that build’s vectors and graph when only other fields changed, the bytes it would write itself', async () => {
    const after = await embed(
      records.map((r) => ({ ...r, installs: r.installs + 1 })),
      before.dir,
    );
    expect(after.report).toMatchObject({ vectors: 'linked', graph: 'linked', embedded: 0, approximate: 'hnsw', count: records.length });
    for (const file of [VECTORS_FILE, HNSW_FILE, HNSW_ROWS_FILE]) expect(inode(after.dir, file)).toBe(inode(before.dir, file));
    const written = await embed(records);
    expect(written.report).toMatchObject({ vectors: 'cached', graph: 'cached' });
    const files = readdirSync(written.dir).filter((name) => name !== 'model');
    expect(readdirSync(after.dir).filter((name) => name !== 'model')).toEqual(files);
    for (const file of files) expect(readFileSync(join(after.dir, file)), file).toEqual(readFileSync(join(written.dir, file)));
    const vectors = await readVectors(after.dir);
    expect(await readHnsw(after.dir, { modelId: vectors.modelId, count: records.length })).toBeDefined();
  }, 300_000);

  it('writes its own when the order moved or that build’s files fail their checks', async () => {
    const moved = await embed([records[1]!, records[0]!, ...records.slice(2)], before.dir);
    expect(moved.report).toMatchObject({ vectors: 'cached', graph: 'cached', embedded: 0 });
    expect(inode(moved.dir, HNSW_ROWS_FILE)).not.toBe(inode(before.dir, HNSW_ROWS_FILE));
    const damaged = join(root, 'damaged');
    cpSync(before.dir, damaged, { recursive: true });
    const file = join(damaged, VECTORS_FILE);
    writeFileSync(file, new Uint8Array(readFileSync(file).length));
    const again = await embed(records, damaged);
    expect(again.report).toMatchObject({ vectors: 'cached', graph: 'cached' });
    expect(readFileSync(join(again.dir, VECTORS_FILE))).toEqual(readFileSync(join(before.dir, VECTORS_FILE)));
  }, 300_000);
});
