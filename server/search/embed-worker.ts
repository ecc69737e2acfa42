// The query embedder's thread: holds the embedding model (transformers.js + ONNX Runtime) off the shim's
// event loop, so importing and loading it never delays a request, and answers the main thread's blocking
// embed calls through shared memory (see query-embedder.ts for the protocol).
import { parentPort, workerData } from 'node:worker_threads';
import { loadEmbedder, type Embedder } from '../../build/embeddings/embedder.ts';
import { EMBED_DONE, EMBED_FAILED, EMBED_OK, EMBED_STATUS, type EmbedShared, type ToWorker } from './query-embedder.ts';

const shared = workerData as EmbedShared;
const control = new Int32Array(shared.control);
const result = new Float32Array(shared.result);
const port = parentPort!;

let embedder: Embedder | undefined;
let loadedDir: string | undefined;

async function handle(message: ToWorker): Promise<void> {
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
        if (next.dims > result.length) throw new Error(`model ${next.modelId} has ${next.dims} dims; at most ${result.length} are supported`);
        // The first run compiles the session's kernels; pay for it here rather than in a request.
        await next.embed(['warm up']);
        embedder = next;
        loadedDir = message.modelDir;
      }
      if (embedder.modelId !== message.modelId) {
        throw new Error(`the model in ${message.modelDir} is ${embedder.modelId}, but the vectors were made with ${message.modelId}`);
      }
      port.postMessage({ kind: 'loaded', id: message.id, modelId: embedder.modelId, dims: embedder.dims });
    } catch (error) {
      port.postMessage({ kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
    }
    return;
  }
  let status = EMBED_FAILED;
  try {
    if (embedder) {
      const [vector] = await embedder.embed([message.text]);
      result.set(vector!);
      status = EMBED_OK;
    }
  } finally {
    Atomics.store(control, EMBED_STATUS, status);
    Atomics.store(control, EMBED_DONE, message.seq);
    Atomics.notify(control, EMBED_DONE);
  }
}

// One message at a time: a load must not swap the model under an embed still running, and vice versa.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToWorker) => {
  queue = queue.then(() => handle(message)).catch(() => undefined);
});
