// The keyword worker (server/search-runtime/keyword-thread.ts): `q` searches run in a worker thread over the index the main
// thread loaded, shared rather than copied. Its answers are the main thread's engine's, page for page; the index
// is shared memory; before the worker has loaded a build and after it dies, searches run on the main thread and
// answer the same; a dead worker is replaced; and each build is searched in its own engine.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import type { SearchRequest } from '../../src/search/query-engine.ts';
import { loadSnapshot, type Snapshot } from '../../server/catalog/snapshot.ts';
import { KeywordThread } from '../../server/search-runtime/keyword-thread.ts';

const page = (request: Partial<SearchRequest>): SearchRequest => ({ offset: 0, limit: 20, ...request });

/** Searches of every kind the engine answers: words, partial matches, filters, sorts, deep pages, typos, no words. */
const REQUESTS: SearchRequest[] = [
  page({ q: 'postgres' }),
  page({ q: 'mcp server' }),
  page({ q: 'notion', types: ['skill'] }),
  page({ q: 'let my agent run SQL against a Postgres database' }),
  page({ q: 'pdf', sort: 'stars', limit: 5 }),
  page({ q: 'browser automation', sort: 'trending', offset: 20 }),
  page({ q: 'git', category: 'developer-tools' }),
  page({ q: 'skills', offset: 40, limit: 50 }),
  page({ q: 'figma design', types: ['mcp', 'plugin'] }),
  page({ q: 'zzzzqqqq-no-such-word' }),
  page({ q: 'kubernetis' }),
  page({ types: ['workflow'], sort: 'installs' }),
  page({ q: 'slack', match: 'any' }),
];

let snapshot: Snapshot;
let twin: Snapshot;
let twinDir: string;

beforeAll(async () => {
  const buildDir = await sharedBuildDir();
  snapshot = loadSnapshot(buildDir);
  // The same build under another directory: a second build as far as the worker can tell.
  twinDir = mkdtempSync(join(tmpdir(), 'catalog-twin-build-'));
  for (const name of ['runtime', 'site']) symlinkSync(join(buildDir, name), join(twinDir, name));
  twin = loadSnapshot(twinDir);
}, 600_000);
afterAll(() => {
  snapshot.close();
  twin.close();
  rmSync(twinDir, { recursive: true, force: true });
});

describe('the keyword worker', () => {
  it('answers every kind of search as the main thread does, page for page', async () => {
    const thread = new KeywordThread();
    try {
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      for (const request of REQUESTS) {
        const here = snapshot.engine.search(request);
        expect(await thread.search(snapshot, request)).toEqual(here);
      }
      // Every one of them came from the worker, and the table is not trivial.
      expect(thread.answered).toEqual({ worker: REQUESTS.length, here: 0 });
      const answers = REQUESTS.map((request) => snapshot.engine.search(request));
      expect(answers.filter((answer) => answer.docs.length > 0).length).toBeGreaterThanOrEqual(REQUESTS.length - 1);
      expect(answers.some((answer) => answer.partial)).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it('searches the index in shared memory: the worker holds no copy of it', () => {
    const files = [...snapshot.sharedFiles.keys()].map((path) => path.slice(path.lastIndexOf('/') + 1));
    expect(files).toEqual(expect.arrayContaining(['columns.bin', 'postings.bin', 'terms.txt', 'ids.txt', 'posting-keys.txt']));
    for (const bytes of snapshot.sharedFiles.values()) expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    // The engine's own arrays are views of that memory, not copies of it.
    expect(snapshot.store.keywords.docs.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(snapshot.store.columns.offsets.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('answers on the main thread until the worker has loaded the build, then from the worker', async () => {
    const thread = new KeywordThread();
    try {
      const request = REQUESTS[1]!;
      // The first search starts the worker and its load; it does not wait for them.
      expect(await thread.search(snapshot, request)).toEqual(snapshot.engine.search(request));
      expect(thread.answered).toEqual({ worker: 0, here: 1 });
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      expect(await thread.search(snapshot, request)).toEqual(snapshot.engine.search(request));
      expect(thread.answered).toEqual({ worker: 1, here: 1 });
    } finally {
      await thread.close();
    }
  });

  it('answers on the main thread when the worker dies, and starts another', async () => {
    const thread = new KeywordThread({ restartAfterMs: 0 });
    try {
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      await thread.crash();
      for (const request of REQUESTS.slice(0, 4)) expect(await thread.search(snapshot, request)).toEqual(snapshot.engine.search(request));
      expect(thread.answered.worker).toBe(0);
      expect(thread.answered.here).toBe(4);
      // The next worker loads the build again and answers.
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      expect(await thread.search(snapshot, REQUESTS[0]!)).toEqual(snapshot.engine.search(REQUESTS[0]!));
      expect(thread.answered.worker).toBe(1);
    } finally {
      await thread.close();
    }
  });

  it('does not start a dying worker again on every request', async () => {
    const thread = new KeywordThread({ restartAfterMs: 60_000 });
    try {
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      await thread.crash();
      for (const request of REQUESTS) expect(await thread.search(snapshot, request)).toEqual(snapshot.engine.search(request));
      expect(await thread.whenLoaded(snapshot)).toBe(false);
      expect(thread.answered).toEqual({ worker: 0, here: REQUESTS.length });
    } finally {
      await thread.close();
    }
  });

  it('searches each build in its own engine, and a build it no longer holds on the main thread', async () => {
    const thread = new KeywordThread();
    try {
      expect(await thread.whenLoaded(snapshot)).toBe(true);
      expect(await thread.whenLoaded(twin)).toBe(true);
      for (const request of REQUESTS.slice(0, 3)) {
        expect(await thread.search(twin, request)).toEqual(twin.engine.search(request));
        expect(await thread.search(snapshot, request)).toEqual(snapshot.engine.search(request));
      }
      expect(thread.answered).toEqual({ worker: 6, here: 0 });
      // A third build: the worker keeps two, so the first one's searches are answered here, still right.
      const third = loadSnapshot(snapshot.buildDir + '/../' + snapshot.buildDir.split('/').at(-1));
      try {
        expect(await thread.whenLoaded(third)).toBe(true);
        expect(await thread.search(snapshot, REQUESTS[0]!)).toEqual(snapshot.engine.search(REQUESTS[0]!));
        expect(thread.answered.here).toBe(1);
        expect(await thread.search(third, REQUESTS[0]!)).toEqual(third.engine.search(REQUESTS[0]!));
        expect(thread.answered.worker).toBe(7);
      } finally {
        third.close();
      }
    } finally {
      await thread.close();
    }
  });
});
