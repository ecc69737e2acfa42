// The vector worker: the shim finds a semantic query's nearest listings in a worker thread (vector-searcher.ts).
// Its answers are those of the same search on this thread, a search never holds the event loop, and a worker that
// is too slow or dies makes searches fall back to keywords (saying so) until a new worker has loaded the build.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { EMBEDDINGS_DIR, readQuantized } from '../../src/artifacts/embeddings.ts';
import { listingQuery, type ListingQuery } from '../../src/domain/contract/listing-query.ts';
import { vectorCandidates, type VectorSources } from '../../src/search/ranking/fusion.ts';
import { VectorIndex } from '../../src/search/vectors.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { createHybridSearch } from '../../server/search-runtime/hybrid-search.ts';
import { keywordListingSearch } from '../../server/search-runtime/listing-search.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';
import type { VectorSearcher } from '../../server/search-runtime/vector-searcher.ts';

const REQUESTS = ['query a postgres database', 'automate a browser to fill in web forms', 'turn a PDF into text', 'send a message to slack'];
const query = (partial: Partial<ListingQuery>): ListingQuery => listingQuery({ limit: 20, ...partial });

describe('the vector worker', () => {
  let snapshot: Snapshot;
  let semantic: SemanticIndex;
  let inThread: VectorSources;

  beforeAll(async () => {
    const buildDir = await sharedBuildDir();
    snapshot = loadSnapshot(buildDir);
    semantic = new SemanticIndex();
    expect(await semantic.load(snapshot)).toBe('ready');
    const stored = await readQuantized(join(buildDir, 'runtime', EMBEDDINGS_DIR));
    inThread = { vectors: new VectorIndex(stored!.q, stored!.manifest.modelId) };
  }, 600_000);
  afterAll(async () => {
    await semantic.close();
    snapshot.store.close();
  });

  it('finds the nearest listings the search on this thread finds, with and without a filter', async () => {
    const ready = semantic.ready(snapshot)!;
    const skills = snapshot.engine.filterDocs({ types: ['skill'] })!;
    const postgres = snapshot.engine.search({ q: 'postgres', sort: 'installs', offset: 0, limit: snapshot.store.count }).docs;
    expect(skills.length).toBeGreaterThan(0);
    expect(postgres.length).toBeGreaterThan(0);
    for (const text of REQUESTS) {
      const vector = (await ready.embed(text))!;
      for (const admitted of [undefined, skills, postgres]) {
        const found = await ready.nearest(vector, admitted, 50);
        expect(found).toEqual(vectorCandidates(inThread, vector, admitted, 50));
        expect(found!.length).toBeGreaterThan(0);
      }
    }
  });

  it('leaves the event loop free while it searches', async () => {
    const search = createHybridSearch(semantic);
    // Twenty searches at once: on this thread they would all finish within the microtasks of this turn, before the
    // loop's next turn; in the worker they queue there (milliseconds each) while the loop turns.
    let settled = false;
    const searches = Promise.all(Array.from({ length: 20 }, (_, i) => search(snapshot, query({ semantic: `${REQUESTS[i % REQUESTS.length]} ${i}` })))).then(
      (answers) => {
        settled = true;
        return answers;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    for (const { headers } of await searches) expect(headers['Search-Mode']).toBe('hybrid');
  });

  it('falls back to keywords, and says so, when the worker does not answer in time', async () => {
    // An exact search of the snapshot's vectors takes milliseconds; the timer of a 0 ms limit fires first.
    const impatient = new SemanticIndex(undefined, { vectorTimeoutMs: 0 });
    try {
      expect(await impatient.load(snapshot)).toBe('ready');
      const search = createHybridSearch(impatient);
      const answer = await search(snapshot, query({ semantic: REQUESTS[1] }));
      expect(answer.headers['Search-Mode']).toBe('keyword-fallback');
      expect(answer.result).toEqual(keywordListingSearch(snapshot, query({ semantic: REQUESTS[1] })).result);
    } finally {
      await impatient.close();
    }
  });

  it('falls back while a dead worker is replaced, then answers by vectors again', async () => {
    const search = createHybridSearch(semantic);
    const worker = (semantic as unknown as { searcher: VectorSearcher }).searcher;
    await worker.crash();
    expect(worker.alive).toBe(false);
    const during = await search(snapshot, query({ semantic: REQUESTS[2] }));
    expect(during.headers['Search-Mode']).toBe('keyword-fallback');
    expect(await semantic.settled).toBe('ready');
    const after = await search(snapshot, query({ semantic: REQUESTS[2] }));
    expect(after.headers['Search-Mode']).toBe('hybrid');
    expect((semantic as unknown as { searcher: VectorSearcher }).searcher).not.toBe(worker);
  });
});
