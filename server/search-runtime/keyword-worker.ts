// The keyword worker's thread: runs keyword searches (the query engine of src/search) over the builds the shim's
// main thread loaded, off its event loop. The store's columns and postings arrive as shared memory
// (Snapshot.sharedFiles), so the worker holds its own engine and scratch state but no second copy of the index.
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { sharedFilesReader } from '../../src/artifacts/shared-file.ts';
import { QueryEngine } from '../../src/search/query-engine.ts';
import type { FromKeywordWorker, ToKeywordWorker } from './keyword-thread.ts';
import type { Numbered } from './worker-client.ts';

const port = parentPort!;
/** The current build and the one before it: a search of the old build may still arrive while a swap settles. */
const KEPT_BUILDS = 2;
const engines = new Map<string, { store: CatalogStore; engine: QueryEngine }>();

function handle(message: Numbered<ToKeywordWorker>): FromKeywordWorker | undefined {
  switch (message.kind) {
    case 'close':
      for (const { store } of engines.values()) store.close();
      engines.clear();
      port.close();
      return undefined;
    case 'load': {
      if (!engines.has(message.buildDir)) {
        const store = new CatalogStore(join(message.buildDir, 'runtime'), { residentBytes: 0, readFile: sharedFilesReader(message.files) });
        engines.set(message.buildDir, { store, engine: new QueryEngine(store) });
        for (const [buildDir, old] of engines) {
          if (engines.size <= KEPT_BUILDS) break;
          old.store.close();
          engines.delete(buildDir);
        }
      }
      return { kind: 'loaded', id: message.id };
    }
    case 'search': {
      const loaded = engines.get(message.buildDir);
      if (!loaded) return { kind: 'failed', id: message.id, message: `the build ${message.buildDir} is not loaded` };
      const { docs, total, hasMore, order, partial, corrected } = loaded.engine.search(message.request);
      return { kind: 'found', id: message.id, docs, total, hasMore, order, partial, corrected };
    }
  }
}

port.on('message', (message: Numbered<ToKeywordWorker>) => {
  let answer: FromKeywordWorker | undefined;
  try {
    answer = handle(message);
  } catch (error) {
    answer = { kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) };
  }
  if (answer) port.postMessage(answer);
});
