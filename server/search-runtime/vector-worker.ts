// The vector worker's thread: holds a build's listing vectors and approximate graph and finds the nearest
// listings to a query vector (src/search/ranking/fusion.ts vectorCandidates), off the shim's event loop. The graph
// search is most of a semantic search's cost; here it runs on another core while the
// shim's thread serves other requests and runs the same request's keyword pass (vector-searcher.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { vectorCandidates, type VectorSources } from '../../src/search/ranking/fusion.ts';
import { HNSW_MANIFEST } from '../../src/search/hnsw.ts';
import { readVectorSources } from '../../src/search/vector-sources.ts';
import type { FromVectorWorker, ToVectorWorker } from './vector-searcher.ts';
import type { Numbered } from './worker-client.ts';

const port = parentPort!;
const answer = (message: FromVectorWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
let sources: VectorSources | undefined;

async function load(message: Extract<Numbered<ToVectorWorker>, { kind: 'load' }>): Promise<void> {
  const { dir, modelId, count } = message;
  sources = await readVectorSources(dir, { modelId, count });
  const approximate = sources.ann !== undefined;
  answer({ kind: 'loaded', id: message.id, approximate, graphRejected: !approximate && existsSync(join(dir, HNSW_MANIFEST)) });
}

function handle(message: Numbered<ToVectorWorker>): Promise<void> | void {
  if (message.kind === 'close') {
    sources = undefined;
    port.close();
    return;
  }
  if (message.kind === 'load') return load(message);
  if (!sources) throw new Error('no vectors are loaded');
  const docs = Uint32Array.from(vectorCandidates(sources, message.vector, message.admitted, message.k));
  answer({ kind: 'nearest', id: message.id, docs }, [docs.buffer]);
}

port.on('message', (message: Numbered<ToVectorWorker>) => {
  Promise.resolve()
    .then(() => handle(message))
    .catch((error: unknown) => answer({ kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) }));
});
