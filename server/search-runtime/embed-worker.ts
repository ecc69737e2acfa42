// The query embedder's thread: holds an operator's embedding model (transformers.js + ONNX Runtime) off the
// shim's event loop, so importing, loading and running it never delays a request (see query-embedder.ts).
import { parentPort } from 'node:worker_threads';
import { loadEmbedder, type Embedder } from '../../src/embeddings/embedder.ts';
import type { FromWorker, ToWorker } from './query-embedder.ts';
import type { Numbered } from './worker-client.ts';

const port = parentPort!;
const answer = (message: FromWorker) => port.postMessage(message);

let embedder: Embedder | undefined;
let loadedDir: string | undefined;

async function handle(message: Numbered<ToWorker>): Promise<void> {
  if (message.kind === 'close') {
    const last = embedder;
    embedder = undefined;
    await last?.dispose().catch(() => undefined);
    port.close();
    return;
  }
  if (message.kind === 'load') {
    try {
      if (!embedder || loadedDir !== message.modelDir || embedder.modelId !== message.modelId) {
        const previous = embedder;
        embedder = undefined;
        await previous?.dispose();
        const next = await loadEmbedder(message.modelDir, { lowMemory: true, threads: 1 });
        // The first run compiles the session's kernels; pay for it here rather than in a request.
        await next.embed(['warm up']);
        embedder = next;
        loadedDir = message.modelDir;
      }
      if (embedder.modelId !== message.modelId) {
        throw new Error(`the model in ${message.modelDir} is ${embedder.modelId}, but the vectors were made with ${message.modelId}`);
      }
      answer({ kind: 'loaded', id: message.id, modelId: embedder.modelId, dims: embedder.dims });
    } catch (error) {
      answer({ kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
    }
    return;
  }
  try {
    if (!embedder) throw new Error('no model is loaded');
    const [vector] = await embedder.embed([message.text]);
    answer({ kind: 'embedded', id: message.id, vector: vector! });
  } catch (error) {
    answer({ kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
  }
}

// One message at a time: a load must not swap the model under an embed still running, and vice versa.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: Numbered<ToWorker>) => {
  queue = queue.then(() => handle(message)).catch(() => undefined);
});
