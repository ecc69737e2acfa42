// The vectors and the query model of the snapshot being served. Loaded in the background after the server
// listens and again after each snapshot swap; until then (and for builds without embeddings) `ready`
// answers undefined and the listing search falls back to keywords, saying so in Search-Mode. The default
// encoder embeds a query on this thread in microseconds; an operator's model runs in query-embedder's worker.
// The build's vectors and graph live in the vector worker (vector-searcher.ts), one per snapshot served.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { EMBEDDINGS_DIR, MODEL_SUBDIR } from '../../src/artifacts/embeddings.ts';
import { VECTORS_MANIFEST, type VectorsManifest } from '../../src/search/vectors.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { isStaticEncoderDir, loadStaticEncoder, staticEncoderSource, type StaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { QueryEmbedder } from './query-embedder.ts';
import { VectorSearcher } from './vector-searcher.ts';

/** What a semantic search needs for one snapshot: the vectors (and graph) of the build, and the query model. */
export interface SemanticReady {
  /**
   * The query's vector; undefined when the model could not answer (then fall back). The default static encoder
   * answers at once on this thread; an operator's model answers from its cache, or from its worker within the
   * embedder's timeout.
   */
  embed(text: string): Float32Array | undefined | Promise<Float32Array | undefined>;
  /**
   * The `k` listings most similar to the query vector, best first, among `admitted` (all when undefined), found
   * in the vector worker; undefined when it failed or did not answer in time (then fall back).
   */
  nearest(vector: Float32Array, admitted: ArrayLike<number> | undefined, k: number): Promise<number[] | undefined>;
  /** True when the build's approximate graph answers (large catalogs), false when the search is exact. */
  readonly approximate: boolean;
}

export interface SemanticSource {
  ready(snapshot: Snapshot): SemanticReady | undefined;
}

export type SemanticStatus = 'loading' | 'ready' | 'unavailable';

export class SemanticIndex implements SemanticSource {
  private readonly logger: Logger | undefined;
  private embedder: QueryEmbedder | undefined;
  /** The static table of the snapshot being served (its file stays open), closed when another replaces it. */
  private encoder: StaticEncoder | undefined;
  /** The vector worker of the snapshot being served, closed when another replaces it. */
  private searcher: VectorSearcher | undefined;
  private loaded: { snapshot: Snapshot; ready: SemanticReady; inWorker: boolean } | undefined;
  /** The snapshot the latest load() was for; an older load that finishes later is dropped. */
  private target: Snapshot | undefined;
  private state: SemanticStatus = 'unavailable';
  private latest: Promise<SemanticStatus> | undefined;
  private closed = false;

  /** How long a search waits for an operator model's worker to embed its query before answering by keywords. */
  private readonly queryTimeoutMs: number | undefined;
  /** How long a search waits for the vector worker before answering by keywords. */
  private readonly vectorTimeoutMs: number | undefined;

  constructor(logger?: Logger, options: { queryTimeoutMs?: number; vectorTimeoutMs?: number } = {}) {
    this.logger = logger;
    this.queryTimeoutMs = options.queryTimeoutMs;
    this.vectorTimeoutMs = options.vectorTimeoutMs;
  }

  get status(): SemanticStatus {
    return this.state;
  }

  /** The outcome of the latest load (for tests, tools and the evaluation, which wait for the model). */
  get settled(): Promise<SemanticStatus> {
    return this.latest ?? Promise.resolve(this.state);
  }

  ready(snapshot: Snapshot): SemanticReady | undefined {
    const loaded = this.loaded;
    if (!loaded || loaded.snapshot !== snapshot || (loaded.inWorker && !this.embedder?.ready)) return undefined;
    if (!this.searcher?.alive) {
      // The vector worker died: searches fall back to keywords while a new one loads the same build.
      void this.load(snapshot);
      return undefined;
    }
    return loaded.ready;
  }

  /**
   * Loads the snapshot's query model (the static table here, an operator's model in the worker) and vectors;
   * resolves to the status reached, never rejects.
   * A build without runtime/embeddings is 'unavailable': semantic queries keep falling back.
   */
  load(snapshot: Snapshot): Promise<SemanticStatus> {
    this.latest = this.loadSnapshot(snapshot);
    return this.latest;
  }

  private async loadSnapshot(snapshot: Snapshot): Promise<SemanticStatus> {
    this.target = snapshot;
    this.loaded = undefined;
    const dir = join(snapshot.buildDir, 'runtime', EMBEDDINGS_DIR);
    if (this.closed || !existsSync(join(dir, VECTORS_MANIFEST))) {
      this.state = 'unavailable';
      return this.state;
    }
    this.state = 'loading';
    const started = performance.now();
    try {
      const manifest = JSON.parse(readFileSync(join(dir, VECTORS_MANIFEST), 'utf8')) as VectorsManifest;
      if (manifest.count !== snapshot.store.count) throw new Error(`${manifest.count} vectors for ${snapshot.store.count} listings`);
      const modelDir = join(dir, MODEL_SUBDIR);
      const previousEncoder = this.encoder;
      const loadingModel = this.queryModel(modelDir, manifest.modelId);
      const opening = VectorSearcher.open(
        dir,
        { modelId: manifest.modelId, count: manifest.count },
        {
          timeoutMs: this.vectorTimeoutMs,
          onError: (error) => this.logger?.error({ err: error }, 'the vector worker failed; semantic queries fall back to keywords'),
        },
      );
      const [model, searcher] = await Promise.all([loadingModel, opening]).catch((error: unknown) => {
        // Whichever of the two did load is released when the other fails.
        loadingModel.then(
          (loaded) => this.release(loaded.encoder),
          () => undefined,
        );
        opening.then(
          (opened) => opened.close(),
          () => undefined,
        );
        throw error;
      });
      if (this.target !== snapshot || this.closed) {
        this.release(model.encoder);
        await searcher.close();
        return this.state;
      }
      // A request embeds right after ready() on this thread, so no request still holds the table this replaces;
      // the old vector worker finishes the searches it has before it ends.
      if (model.encoder !== this.encoder) {
        this.encoder?.close();
        this.encoder = model.encoder;
      }
      void this.searcher?.close();
      this.searcher = searcher;
      const { embed } = model;
      if (searcher.graphRejected) this.logger?.warn({ dir }, 'the approximate index fails its checks; semantic search stays exact');
      this.loaded = {
        snapshot,
        ready: { embed, nearest: (vector, admitted, k) => searcher.nearest(vector, admitted, k), approximate: searcher.approximate },
        inWorker: !isStaticEncoderDir(modelDir),
      };
      this.state = 'ready';
      this.logger?.info(
        {
          modelId: manifest.modelId,
          dims: manifest.dims,
          count: manifest.count,
          approximate: searcher.approximate ? 'hnsw' : 'exact',
          // The query model: the static table kept from the build before (the same files), loaded, or in the worker.
          queryModel: model.encoder === undefined ? 'worker' : model.encoder === previousEncoder ? 'kept' : 'loaded',
          ms: Math.round(performance.now() - started),
        },
        'semantic search ready',
      );
    } catch (error) {
      if (this.target !== snapshot) return this.state;
      this.state = 'unavailable';
      this.logger?.warn({ err: error, buildDir: snapshot.buildDir }, 'semantic search unavailable; semantic queries fall back to keywords');
    }
    return this.state;
  }

  /** The query embedding of the build's model: the static table on this thread, anything else in the worker. */
  private async queryModel(modelDir: string, modelId: string): Promise<{ embed: SemanticReady['embed']; encoder?: StaticEncoder }> {
    if (isStaticEncoderDir(modelDir)) {
      const loaded = this.encoder;
      // The new build links the table already loaded (the same files): reloading it would hold this thread at every
      // switch for its checksum and vocabulary.
      if (loaded?.modelId === modelId && loaded.source !== undefined && loaded.source === staticEncoderSource(modelDir)) {
        return { embed: (text) => loaded.embed(text), encoder: loaded };
      }
      // Rows read as words are met: the shim embeds a few words a request, so the table stays out of its memory.
      const encoder = await loadStaticEncoder(modelDir, { rows: 'disk' });
      if (encoder.modelId !== modelId) {
        encoder.close();
        throw new Error(`the model in ${modelDir} is ${encoder.modelId}, but the vectors were made with ${modelId}`);
      }
      return { embed: (text) => encoder.embed(text), encoder };
    }
    // A worker that died (see onError) is replaced on the next load rather than leaving search degraded.
    if (!this.embedder?.alive) {
      this.embedder = new QueryEmbedder({
        ...(this.queryTimeoutMs === undefined ? {} : { timeoutMs: this.queryTimeoutMs }),
        onError: (error) => this.logger?.error({ err: error }, 'the embedding worker failed; semantic queries fall back to keywords'),
      });
    }
    const embedder = this.embedder;
    await embedder.load(modelDir, modelId);
    return { embed: (text) => embedder.cached(text) ?? embedder.embed(text) };
  }

  /** Closes an encoder a load made and did not keep; the one serving stays open. */
  private release(encoder: StaticEncoder | undefined): void {
    if (encoder !== this.encoder) encoder?.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.loaded = undefined;
    this.encoder?.close();
    await Promise.all([this.searcher?.close(), this.embedder?.close()]);
  }
}
