// The one build command: ingest → index → (embeddings, site, discovery, shards: later stages) → switch.
// Every stage writes into a fresh build directory; `current` moves to it only when all stages succeeded,
// so a failed build leaves the previous output serving.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { openCatalogDb, type CatalogDb } from './catalog-db.ts';
import { buildDirs, currentBuild, newBuildDir, switchCurrent, type BuildDirs } from './build-dirs.ts';
import { ingest, type IngestReport } from './ingest.ts';
import { buildRuntimeArtifacts, type RuntimeManifest } from './runtime-artifacts.ts';
import { readSearchTrend } from './signals/search-trend.ts';

export interface StageContext {
  dirs: BuildDirs;
  buildDir: string;
  baseUrl: string;
  db: CatalogDb;
  runtime: RuntimeManifest | undefined;
  progress(done: number, total: number): void;
  log(message: string): void;
}

export interface Stage {
  name: string;
  run(ctx: StageContext): Promise<void>;
}

export interface BuildOptions {
  dataDir: string;
  /** Snapshot export to ingest first; skipped when undefined (build from the existing database). */
  exportPath?: string | undefined;
  baseUrl: string;
  skipInvalid?: boolean;
  rejectsPath?: string;
  quiet?: boolean;
  /** Stages after "index"; the default list is the product's. */
  stages?: Stage[];
}

export interface BuildResult {
  buildDir: string;
  timings: Record<string, number>;
  ingest: IngestReport | undefined;
  runtime: RuntimeManifest;
}

export const INDEX_STAGE: Stage = {
  name: 'index',
  async run(ctx) {
    // searchTrend folds in the shim's counters of the recent window: Redis when the shims share one
    // (the same REDIS_URL the shim reads), else <data>/signals.db.
    const searchTrend = await readSearchTrend({ dataDir: ctx.dirs.dataDir, redisUrl: process.env.REDIS_URL || undefined });
    ctx.runtime = await buildRuntimeArtifacts({ db: ctx.db, outDir: join(ctx.buildDir, 'runtime'), searchTrend, onProgress: ctx.progress });
  },
};

/** Stages after ingest, in order. */
export async function defaultStages(): Promise<Stage[]> {
  // Imported lazily: the discovery generators import the pipeline's types and the server's route tables.
  const { DISCOVERY_STAGE } = await import('./discovery/index.ts');
  const { SHARDS_STAGE } = await import('./shards.ts');
  const { SITE_STAGE } = await import('./site-stage.ts');
  const { EMBEDDINGS_STAGE } = await import('./embeddings/embeddings-stage.ts');
  // The site stage moves Astro's output into site/, so it runs before the stages that add files there.
  return [INDEX_STAGE, EMBEDDINGS_STAGE, SITE_STAGE, SHARDS_STAGE, DISCOVERY_STAGE];
}

export async function runBuild(options: BuildOptions): Promise<BuildResult> {
  const dirs = buildDirs(options.dataDir);
  const timings: Record<string, number> = {};
  // Progress bars only on a terminal; elsewhere (CI logs, pipes) the per-stage timing lines say enough.
  const bars = options.quiet || !process.stderr.isTTY
    ? undefined
    : new cliProgress.MultiBar(
        { format: '{stage} [{bar}] {percentage}% {value}/{total} {duration_formatted}', hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      );
  const log = (message: string) => {
    if (options.quiet) return;
    if (bars) bars.log(`${message}\n`);
    else console.log(message);
  };
  const timed = async <T>(name: string, work: (progress: (done: number, total: number) => void) => Promise<T>): Promise<T> => {
    const bar = bars?.create(1, 0, { stage: name.padEnd(10) });
    const started = performance.now();
    try {
      return await work((done, total) => {
        bar?.setTotal(total);
        bar?.update(done);
      });
    } finally {
      timings[name] = Math.round(performance.now() - started);
      bar?.stop();
      log(`${name}: ${(timings[name]! / 1000).toFixed(1)} s`);
    }
  };

  let report: IngestReport | undefined;
  const buildDir = newBuildDir(dirs);
  try {
    if (options.exportPath) {
      const exportPath = options.exportPath;
      report = await timed('ingest', async () =>
        ingest({ exportPath, database: dirs.database, skipInvalid: options.skipInvalid, rejectsPath: options.rejectsPath }),
      );
      log(`ingest: ${report.listings} listings (${report.added} added, ${report.changed} changed, ${report.removed} removed, ${report.rejected.length} rejected)`);
    }
    const db = openCatalogDb(dirs.database);
    try {
      const ctx: StageContext = { dirs, buildDir, baseUrl: options.baseUrl, db, runtime: undefined, progress: () => undefined, log };
      for (const stage of options.stages ?? (await defaultStages())) {
        await timed(stage.name, async (progress) => {
          ctx.progress = progress;
          await stage.run(ctx);
        });
      }
      if (!ctx.runtime) throw new Error('the build produced no runtime artifacts');
      writeFileSync(join(buildDir, 'build.json'), JSON.stringify({ builtAt: new Date().toISOString(), baseUrl: options.baseUrl, timings, ingest: report && { ...report, rejected: report.rejected.length } }, null, 2));
      switchCurrent(dirs, buildDir);
      return { buildDir, timings, ingest: report, runtime: ctx.runtime };
    } finally {
      db.close();
    }
  } catch (error) {
    rmSync(buildDir, { recursive: true, force: true });
    throw error;
  } finally {
    bars?.stop();
  }
}

export { currentBuild, buildDirs };
