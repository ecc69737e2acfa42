// Guarantees the embeddings stage writes vectors in document order next to the model that made them (the
// committed distilled encoder), reuses the cached vectors when the catalog text is unchanged (even when the
// documents are reordered), re-embeds when the text changes, builds an HNSW graph for large catalogs (reused while the text is unchanged), and
// copies an operator-configured model (CATALOG_EMBEDDING_MODEL_DIR) into the build, which the shim then
// runs in its worker without ever making a request wait for it.
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDINGS_DIR, MODEL_SUBDIR } from '../../src/artifacts/embeddings.ts';
import { buildEmbeddings, EMBEDDINGS_STAGE } from '../../build/stages/embeddings-stage.ts';
import { HNSW_FILE, HNSW_MANIFEST } from '../../src/search/hnsw.ts';
import { readVectors, type VectorIndex, type VectorsManifest } from '../../src/search/vectors.ts';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { loadSnapshot } from '../../server/catalog/snapshot.ts';
import { createHybridSearch } from '../../server/search-runtime/hybrid-search.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { snapshotRecords, writeExport } from '../support/fixtures.ts';
import { writeTinyModel } from '../support/tiny-model.ts';
import { listingQuery } from '../../src/domain/contract/listing-query.ts';
import { DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST } from '../../src/embeddings/static-encoder.ts';
import { TEST_BASE_URL } from '../support/server.ts';

const source = snapshotRecords().slice(0, 1500);
const copy = (): ListingRecord[] => structuredClone(source);
let dataDir: string;
const cacheDir = () => join(dataDir, 'cache', EMBEDDINGS_DIR);
const cacheEntries = () => readdirSync(cacheDir()).filter((name) => /^[0-9a-f]{64}$/.test(name));
const embeddingsOf = (buildDir: string) => join(buildDir, 'runtime', EMBEDDINGS_DIR);
const manifestOf = (buildDir: string) => JSON.parse(readFileSync(join(embeddingsOf(buildDir), 'vectors.json'), 'utf8')) as VectorsManifest;
const idsOf = (buildDir: string) => readFileSync(join(buildDir, 'runtime', 'ids.txt'), 'utf8').split('\n');

let exports = 0;
async function build(records: ListingRecord[] | undefined): Promise<string> {
  const exportPath = records ? writeExport(join(dataDir, `export-${++exports}`), records) : undefined;
  return (await runBuild({ dataDir, exportPath, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE, EMBEDDINGS_STAGE] })).buildDir;
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'catalog-embeddings-stage-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the embeddings stage', () => {
  // Builds are kept two at a time (switchCurrent), so what later tests compare with is read up front.
  let first: string;
  let firstManifest: VectorsManifest;
  let firstIds: string[];
  let firstVectors: VectorIndex;
  let latest: string;
  beforeAll(async () => {
    first = await build(source);
    latest = first;
    firstManifest = manifestOf(first);
    firstIds = idsOf(first);
    firstVectors = await readVectors(embeddingsOf(first));
  }, 300_000);

  it('writes one vector per document and the model that made them into runtime/embeddings', async () => {
    const manifest = manifestOf(first);
    expect(manifest.count).toBe(source.length);
    // The committed distilled encoder, copied (hard-linked) into the build so the shim embeds queries alike.
    const model = JSON.parse(readFileSync(join(embeddingsOf(first), MODEL_SUBDIR, STATIC_ENCODER_MANIFEST), 'utf8')) as { modelId: string };
    expect(model).toEqual(JSON.parse(readFileSync(join(DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST), 'utf8')));
    expect(manifest.modelId).toBe(model.modelId);
    // Below HNSW_MIN_ROWS exact search is fast enough: no approximate index.
    expect(existsSync(join(embeddingsOf(first), HNSW_MANIFEST))).toBe(false);
    expect(cacheEntries()).toHaveLength(1);
  });

  it('reuses the cached vectors when the text is unchanged', async () => {
    const again = await build(undefined);
    latest = again;
    expect(manifestOf(again).sha256).toBe(firstManifest.sha256);
    const report = await buildEmbeddings({ runtimeDir: join(again, 'runtime'), cacheDir: cacheDir() });
    expect(report).toMatchObject({ model: 'distilled', vectors: 'cached', count: source.length });
  }, 120_000);

  it('keeps the cached vectors when only the order changes, and moves each listing’s vector with it', async () => {
    const records = copy();
    // A listing from the end of the installs order jumps to the front: same texts, other document numbers.
    const moved = records[records.length - 1]!;
    moved.installs = 10 ** 9;
    moved.installsHistory[moved.installsHistory.length - 1] = moved.installs;
    const reordered = await build(records);
    latest = reordered;
    expect(manifestOf(reordered).modelId).toBe(firstManifest.modelId);
    expect(cacheEntries()).toHaveLength(1);
    const after = await readVectors(embeddingsOf(reordered));
    const newIds = idsOf(reordered);
    expect(newIds[0]).toBe(records[records.length - 1]!.id);
    expect(newIds).not.toEqual(firstIds);
    for (const doc of [0, 1, 700, newIds.length - 1]) expect(after.vector(doc)).toEqual(firstVectors.vector(firstIds.indexOf(newIds[doc]!)));
  }, 120_000);

  it('re-embeds when the text changes, keeping the previous vectors cached too', async () => {
    const records = copy();
    records[3]!.description = 'A completely rewritten description about orbital mechanics and telescopes.';
    const changed = await build(records);
    latest = changed;
    expect(manifestOf(changed).modelId).toBe(firstManifest.modelId);
    expect(manifestOf(changed).sha256).not.toBe(firstManifest.sha256);
    expect(cacheEntries()).toHaveLength(2);
  }, 300_000);

  it('builds an HNSW graph for a large catalog, reuses it while the text is unchanged, and the shim searches it', async () => {
    const runtimeDir = join(latest, 'runtime');
    const report = await buildEmbeddings({ runtimeDir, cacheDir: cacheDir(), hnswMinRows: 1000 });
    expect(report.approximate).toBe('hnsw');
    expect(report.timingsMs.hnsw).toBeDefined();
    const graph = join(embeddingsOf(latest), HNSW_FILE);
    const built = lstatSync(graph);
    // The second run links the cached graph instead of building another: the same file (inode).
    await buildEmbeddings({ runtimeDir, cacheDir: cacheDir(), hnswMinRows: 1000 });
    expect(lstatSync(graph).ino).toBe(built.ino);
    const snapshot = loadSnapshot(latest);
    const semantic = new SemanticIndex();
    try {
      expect(await semantic.load(snapshot)).toBe('ready');
      expect(semantic.ready(snapshot)!.approximate).toBe(true);
      const { result, headers } = await createHybridSearch(semantic)(snapshot, {
        q: undefined,
        semantic: 'browser automation',
        types: ['skill'],
        category: undefined,
        owner: undefined,
        updatedSince: undefined,
        risk: undefined,
        distinct: false,
        sort: undefined,
        offset: 0,
        limit: 20,
      });
      expect(headers['Search-Mode']).toBe('hybrid');
      expect(result.docs.length).toBe(20);
      for (const doc of result.docs) expect(snapshot.store.idOf(doc).startsWith('skill:')).toBe(true);
    } finally {
      await semantic.close();
      snapshot.store.close();
    }
  }, 120_000);

  it('copies an operator-configured model into the build, embeds with it, and the shim answers through its worker', async () => {
    const configured = join(cacheDir(), '..', 'operator-model');
    const { modelId, dims } = await writeTinyModel(
      configured,
      copy().map((r) => `${r.name}. ${r.description ?? ''}`),
    );
    const runtimeDir = join(latest, 'runtime');
    const report = await buildEmbeddings({ runtimeDir, cacheDir: cacheDir(), modelDir: configured });
    expect(report).toMatchObject({ model: 'configured', modelId, dims });
    expect(manifestOf(latest).modelId).toBe(modelId);
    // A copy (or hard link) inside the build, never a link out of it: the build must stand alone.
    expect(lstatSync(join(embeddingsOf(latest), MODEL_SUBDIR)).isSymbolicLink()).toBe(false);
    expect(existsSync(join(embeddingsOf(latest), MODEL_SUBDIR, 'onnx', 'model.onnx'))).toBe(true);

    const snapshot = loadSnapshot(latest);
    const semantic = new SemanticIndex();
    try {
      expect(await semantic.load(snapshot)).toBe('ready');
      const search = createHybridSearch(semantic);
      const query = listingQuery({ semantic: 'browser automation for web pages', limit: 10 });
      // The search waits (asynchronously: the event loop keeps turning) for the worker to embed the query.
      let turns = 0;
      let waiting = true;
      const turn = () => {
        turns++;
        if (waiting) setImmediate(turn);
      };
      setImmediate(turn);
      const { result, headers } = await search(snapshot, query);
      waiting = false;
      expect(headers['Search-Mode']).toBe('hybrid');
      expect(result.docs.length).toBe(10);
      expect(turns).toBeGreaterThan(0);
    } finally {
      await semantic.close();
      snapshot.store.close();
    }
  }, 120_000);
});
