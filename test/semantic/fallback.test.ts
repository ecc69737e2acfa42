// Guarantees `semantic` falls back to keyword search, saying `Search-Mode: keyword-fallback`, whenever
// embeddings cannot answer: a build without them, a model not loaded yet, a request that embeds to the zero
// vector; and that a fallback answer is never served from the response cache once the model is ready.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { listingQuery, type ListingQuery } from '../../src/domain/contract/listing-query.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { keywordListingSearch } from '../../server/search-runtime/listing-search.ts';
import { createHybridSearch } from '../../server/search-runtime/hybrid-search.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';
import { snapshotRecords, writeExport } from '../support/fixtures.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

interface Page {
  items: Array<{ id: string }>;
  hasMore: boolean;
}

const query = (partial: Partial<ListingQuery>): ListingQuery => listingQuery({ limit: 20, ...partial });

describe('a build without embeddings', () => {
  let dataDir: string;
  let buildDir: string;
  let server: TestServer;
  let snapshot: Snapshot;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'catalog-semantic-fallback-'));
    const exportPath = writeExport(join(dataDir, 'export'), snapshotRecords().slice(0, 400));
    ({ buildDir } = await runBuild({ dataDir, exportPath, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE] }));
    server = await startInProcess({}, { buildDir });
    expect(await server.app.semantic.settled).toBe('unavailable');
    snapshot = loadSnapshot(buildDir);
  }, 120_000);
  afterAll(async () => {
    await server.close();
    snapshot.store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['automate a browser to fill in web forms', 'turn a PDF into text'])('answers semantic=%s with keyword results', async (text) => {
    const res = await server.fetch(`/api/v1/listings?semantic=${encodeURIComponent(text)}&limit=10`);
    expect(res.status).toBe(200);
    expect(res.headers.get('search-mode')).toBe('keyword-fallback');
    const expected = keywordListingSearch(snapshot, query({ semantic: text, limit: 10 })).result.docs.map((doc) => snapshot.store.idOf(doc));
    expect(expected.length).toBeGreaterThan(0);
    expect((await json<Page>(res)).items.map((item) => item.id)).toEqual(expected);
  });

  it('answers /ask with keyword results and says so', async () => {
    const res = await server.fetch('/ask?q=browser+automation', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('search-mode')).toBe('keyword-fallback');
  });
});

describe('the served build, with embeddings', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startInProcess();
  });
  afterAll(() => server.close());

  it('never keeps a fallback answer in the response cache once the model is ready', async () => {
    const path = '/api/v1/listings?semantic=send+a+message+to+slack&limit=5';
    // Right after listening the model may still be loading: this answer can be either mode.
    const first = await server.fetch(path);
    expect(first.headers.get('search-mode')).toMatch(/^(keyword-fallback|hybrid)$/);
    expect(await server.app.semantic.settled).toBe('ready');
    const second = await server.fetch(path);
    expect(second.headers.get('search-mode')).toBe('hybrid');
  });

  it.each(['ᚠᚢᚦ', '🙂🙂🙂'])('falls back for a request that embeds to the zero vector (%s)', async (text) => {
    await server.app.semantic.settled;
    const res = await server.fetch(`/api/v1/listings?semantic=${encodeURIComponent(text)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('search-mode')).toBe('keyword-fallback');
    const body = await json<Page>(res);
    expect(Array.isArray(body.items)).toBe(true);
  });
});

describe('a semantic index that has not loaded', () => {
  it('makes the hybrid search answer exactly as the keyword search, marked as a fallback', async () => {
    const snapshot = loadSnapshot(await sharedBuildDir());
    try {
      const search = createHybridSearch(new SemanticIndex());
      for (const partial of [
        { semantic: 'query a postgres database' },
        { semantic: 'database', q: 'postgres' },
        { semantic: 'images', types: ['mcp' as const] },
        { q: 'turn a PDF into structured text' },
      ]) {
        const hybrid = await search(snapshot, query(partial));
        expect(hybrid.headers['Search-Mode']).toBe('keyword-fallback');
        expect(hybrid.result).toEqual(keywordListingSearch(snapshot, query(partial)).result);
      }
      // The q request above is a partial answer (the one that vectors would rank).
      expect((await search(snapshot, query({ q: 'turn a PDF into structured text' }))).headers['Search-Match']).toBe('partial');
    } finally {
      snapshot.store.close();
    }
  });
});
