// A build stage: one step after ingest that reads the store and the runtime artifacts and writes into the new
// build directory. Its own module so that the stages and the pipeline that runs them do not import each other.
import type { BuildDirs } from '../../src/artifacts/build-dirs.ts';
import type { RuntimeManifest } from '../../src/artifacts/runtime-manifest.ts';
import type { CatalogDb } from '../sqlite-store.ts';
import type { RuntimeWriter } from '../runtime-writer.ts';
import type { SiteTops } from '../site-tops.ts';

export interface StageContext {
  dirs: BuildDirs;
  buildDir: string;
  baseUrl: string;
  db: CatalogDb;
  /** The one writer of <buildDir>/runtime: every file the index and embeddings stages make goes through it. */
  runtimeOut: RuntimeWriter;
  /** The runtime manifest, once the index stage has recorded it. */
  runtime: RuntimeManifest | undefined;
  /** searchTrend per listing id, folded in from the shim's counters of the recent window. */
  searchTrend: ReadonlyMap<string, number>;
  /** Removed listings as given (a mirror's: the origin's), id → last day listed, beside those this store remembers. */
  gone?: ReadonlyMap<string, string> | undefined;
  /** The operator's embedding model (Config.embeddingModelDir); undefined: the committed distilled encoder. */
  embeddingModelDir?: string | undefined;
  /** How far the stage is: `done` of `total` `what` (e.g. "pages rendered"); the operator's periodic line says it. */
  progress(done: number, total: number, what?: string): void;
  /** Astro render processes at once (--render-workers); undefined: as the machine allows (site-stage.ts renderPlan). */
  renderWorkers?: number | undefined;
  /** Listings in the store once ingest is done: what the runtime will hold, for a stage that starts early (Stage.warm). */
  listings?: number | undefined;
  /** Listings this build's ingest added, changed or removed; undefined when it ingested nothing (--no-ingest). */
  changedListings?: number | undefined;
  /** The build being served, which this one replaces (read only: pages that did not change are linked from it). */
  previousBuild?: string | undefined;
  /** The code and origin the pages are rendered with: a page is carried over only from a build of the same. */
  renderFingerprint?: string | undefined;
  /**
   * The names at the top of <buildDir>/site that hold the pages, once the site stage has made them. The stages after
   * it write none of them (SiteWriter refuses): only .br/.gz copies beside the pages are added there.
   */
  pageEntries?: ReadonlySet<string> | undefined;
  /**
   * Which side writes under each name at the top of <buildDir>/site: the site stage's pages or the SiteWriters' files
   * (site-tops.ts). One for the build, so that stages writing site/ side by side never write under each other's names.
   */
  siteTops?: SiteTops | undefined;
  /**
   * Called by the site stage when every page is in <buildDir>/site, with pageEntries. Set for a first start, which
   * serves the pages from then on while the build goes on; `current` still moves only when every stage is done.
   */
  pagesReady?: ((entries: string[]) => void) | undefined;
  log(message: string): void;
  /** Aborted when a stage running beside this one failed: the build is lost, so a long stage stops early. */
  signal?: AbortSignal | undefined;
}

/** A build that failed, with the stage it failed in (the message names it; `cause` is the stage's own error). */
export class BuildStageError extends Error {
  readonly stage: string;

  constructor(stage: string, cause: unknown) {
    super(`build failed in stage "${stage}": ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'BuildStageError';
    this.stage = stage;
  }
}

/** What a stage started before the stages it waits for were done (Stage.warm): its run takes it over. */
export interface Warmed {
  /** Stops what was started and resolves once it has: the build failed before the stage ran, or the run has no use for it. */
  discard(): Promise<void>;
}

export interface Stage {
  name: string;
  /** The stage writes into <buildDir>/runtime: once every such stage is done, the shim can answer from the build. */
  runtime?: boolean;
  /**
   * The stages whose output this one reads (or whose files it must not run beside): it starts once those of them in
   * the build's list are done, beside any other stage whose own are. Undefined: every stage listed before it.
   */
  after?: readonly string[];
  /**
   * What the stage may hold at once for a catalog of `listings`, in bytes, its child processes included: another
   * stage starts beside it only while the estimates of those running fit the build's memory (build-pipeline.ts).
   * Undefined: nothing worth counting.
   */
  memoryBytes?(listings: number, ctx: Pick<StageContext, 'renderWorkers'>): number;
  /**
   * Starts, once ingest is done, the part of the stage's work that needs nothing of the stages it waits for (the site
   * stage: its renderers' start-up, while the index stage writes the runtime they read). The build hands the result to
   * the stage's run, or discards it when the build fails before the stage runs. Only called when stages may run side
   * by side; undefined: the stage starts when it runs.
   */
  warm?(ctx: StageContext): Warmed | undefined;
  /** `warmed`: what this stage's warm started, if anything; the run uses it or discards it. */
  run(ctx: StageContext, warmed?: Warmed): Promise<void>;
}
