// The one build command: ingest → index → (embeddings, site, shards, discovery side by side) → front → switch.
// Every stage writes into a fresh build directory; `current` moves to it only when all stages succeeded,
// so a failed build leaves the previous output serving. A stage starts once the stages it reads are done
// (Stage.after), beside others while the stage concurrency and the machine's memory allow (runStages). The environment is read by the caller (src/config.ts)
// and comes in as options; nothing here reads process.env.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { openCatalogDb, readMeta, type CatalogDb } from './sqlite-store.ts';
import { BUILD_RECORD_FILE, buildDirs, currentBuild, newBuildDir, removeTrash, RUNTIME_READY_FILE, switchCurrent } from '../src/artifacts/build-dirs.ts';
import { ingest, type IngestReport } from './stages/ingest-stage.ts';
import { BuildStageError, type Stage, type StageContext, type Warmed } from './stages/stage.ts';

export { BuildStageError, type Stage, type StageContext, type Warmed } from './stages/stage.ts';
import { buildRuntimeArtifacts } from './stages/index-stage.ts';
import { RuntimeWriter } from './runtime-writer.ts';
import { SiteTops } from './site-tops.ts';
import { isCurrentRuntime, readRuntimeManifest, type RuntimeManifest } from '../src/artifacts/runtime-manifest.ts';
import { readSearchTrend } from './search-trend.ts';

/** The keyword index's per-listing terms, kept in a build for the next one to reuse (keyword-term-cache.ts). */
export const KEYWORD_TERMS_FILE = 'index/keyword-terms.bin';

export interface BuildOptions {
  dataDir: string;
  /** Snapshot export to ingest first; skipped when undefined (build from the existing database). */
  exportPath?: string | undefined;
  baseUrl: string;
  skipInvalid?: boolean;
  rejectsPath?: string;
  /** Only errors (thrown) and the caller's summary: no stage lines, no progress. */
  quiet?: boolean;
  /**
   * Where the stage lines go (default: stderr, so stdout keeps the summary and --json/--report documents). Bars are
   * drawn instead only when this is stderr and stderr is a terminal.
   */
  output?: { write(line: string): unknown; isTTY?: boolean };
  /** How often a running stage says what it is doing when the output is not a terminal. */
  progressEveryMs?: number;
  /** Astro render processes at once; undefined: as the machine's cores and memory allow (site-stage.ts renderPlan). */
  renderWorkers?: number | undefined;
  /** Stages run at once (1: one after the other, in the list's order); undefined: stageConcurrency's default. */
  stageConcurrency?: number | undefined;
  /** What the stages running side by side may hold together, by their estimates (Stage.memoryBytes); default: STAGE_MEMORY_SHARE of the machine's memory. */
  stageMemoryBytes?: number | undefined;
  /** Stages after "index"; the default list is the product's. */
  stages?: Stage[];
  /** Build even when nothing that shapes the output changed since the build being served, rendering every page anew. */
  force?: boolean;
  /** Ingest: where the export's stored files are (files/<slug>/<path>; default: beside the export). */
  filesDir?: string;
  /** Ingest: the history end of records without metrics.installsAsOf. */
  historyEnd?: string;
  /** searchTrend per listing id as given (a mirror's: the origin's), instead of this data directory's counters. */
  searchTrend?: ReadonlyMap<string, number>;
  /** Removed listings as given (a mirror's: the origin's /shards/gone.json), id → last day listed. */
  gone?: ReadonlyMap<string, string>;
  /** Config.redisUrl: where the shims count searches; unset: <data>/signals.db. Not read when searchTrend is given. */
  redisUrl?: string | undefined;
  /** Config.embeddingModelDir: the operator's embedding model; unset: the committed distilled encoder. */
  embeddingModelDir?: string | undefined;
  /**
   * Called once the stages that write runtime/ are done and others (the site) are still to run: the build directory
   * can answer the API and search from then on. A first start serves from it while the site stage finishes.
   */
  onRuntimeReady?: (buildDir: string) => void;
  /**
   * Called once every page is in <buildDir>/site while later stages still run: `entries`, the names at the top of
   * site/, are complete from then on (StageContext.pagesReady). A first start serves the pages from then on.
   */
  onPagesReady?: (buildDir: string, entries: string[]) => void;
}

export interface BuildResult {
  buildDir: string;
  /** True when nothing changed and the build being served was kept. */
  unchanged: boolean;
  timings: Record<string, number>;
  /**
   * CPU milliseconds (user + system) of this process's threads and of the child processes that ended in it, per stage
   * that ran alone, and per group of stages that ran side by side under the group's names joined by "+" (e.g.
   * "embeddings+site+shards+discovery"): the process's CPU cannot be told apart between stages that share it.
   */
  cpu: Record<string, number>;
  /**
   * Milliseconds from the start until `current` pointed at the new build: the build is live then. The command ends
   * later when the replaced builds are still being removed (removeTrash). Undefined when nothing was switched.
   */
  switchedMs?: number | undefined;
  ingest: IngestReport | undefined;
  runtime: RuntimeManifest;
}

export const INDEX_STAGE: Stage = {
  name: 'index',
  runtime: true,
  after: [],
  async run(ctx) {
    ctx.runtime = await buildRuntimeArtifacts({
      db: ctx.db,
      out: ctx.runtimeOut,
      searchTrend: ctx.searchTrend,
      gone: ctx.gone,
      termCache: ctx.renderFingerprint
        ? {
            previous: ctx.previousBuild && join(ctx.previousBuild, KEYWORD_TERMS_FILE),
            out: join(ctx.buildDir, KEYWORD_TERMS_FILE),
            fingerprint: ctx.renderFingerprint,
          }
        : undefined,
      log: ctx.log,
      onProgress: (done, total) => ctx.progress(done, total, 'listings indexed'),
      onStep: ({ step, wallMs, cpuMs }) => ctx.log(`index: ${step} in ${(wallMs / 1000).toFixed(1)} s (CPU ${(cpuMs / 1000).toFixed(1)} s)`),
    });
  },
};

/** Stages after ingest, in order. */
export async function defaultStages(): Promise<Stage[]> {
  // Imported when a build runs: the CLI's other commands (ingest, export, mirror's fetch) never load the generators.
  const { DISCOVERY_STAGE } = await import('./stages/discovery-stage.ts');
  const { SHARDS_STAGE } = await import('./stages/shards-stage.ts');
  const { SITE_STAGE } = await import('./stages/site-stage.ts');
  const { EMBEDDINGS_STAGE } = await import('./stages/embeddings-stage.ts');
  const { FRONT_STAGE } = await import('./stages/front-stage.ts');
  // Each declares what it waits for (Stage.after); the list's order is the order they start in when they could all
  // start: the embeddings first, so that the runtime is complete (onRuntimeReady) as early as it can be.
  return [INDEX_STAGE, EMBEDDINGS_STAGE, SITE_STAGE, SHARDS_STAGE, DISCOVERY_STAGE, FRONT_STAGE];
}

/**
 * Stages at once by default: one per core, and at least two even on one core, since much of a stage's time is spent
 * waiting (on the renderers' bundling, the disk, zlib on libuv's threads) while another can use the CPU.
 */
export function stageConcurrency(requested?: number, cores: number = availableParallelism()): number {
  return requested ?? Math.max(2, cores);
}

/**
 * The share of the machine's memory the stages running side by side may take together by their estimates
 * (Stage.memoryBytes); the rest is the build process's own (the store, the runtime it reads) and the system's.
 */
export const STAGE_MEMORY_SHARE = 0.75;

/** A stage's place in runStages: the stages it waits for, as named in the list. */
function waitsFor(stages: readonly Stage[], index: number): string[] {
  const stage = stages[index]!;
  if (stage.after === undefined) return stages.slice(0, index).map((earlier) => earlier.name);
  const listed = new Set(stages.map((other) => other.name));
  return stage.after.filter((name) => listed.has(name));
}

/**
 * Runs `stages`, each once the stages it waits for are done, at most `concurrency` at once, and another beside those
 * running only while their memory estimates (at `listings()`) fit `memoryBytes` (one alone always starts). Stages
 * start in the list's order among those that may. When one fails no other starts, those running are awaited, and the
 * first failure is thrown.
 */
export async function runStages(
  stages: readonly Stage[],
  options: {
    concurrency: number;
    memoryBytes: number;
    listings: () => number;
    estimateContext: Pick<StageContext, 'renderWorkers'>;
    run: (stage: Stage) => Promise<void>;
    onStart?: (stage: Stage) => void;
    onEnd?: (stage: Stage) => void;
  },
): Promise<void> {
  const names = stages.map((stage) => stage.name);
  if (new Set(names).size !== names.length) throw new Error(`a stage is listed twice: ${names.join(', ')}`);
  const needs = new Map(stages.map((stage, index) => [stage, waitsFor(stages, index)]));
  const done = new Set<string>();
  const waiting = [...stages];
  const running = new Map<Stage, { memory: number; settled: Promise<Stage> }>();
  let failure: { error: unknown } | undefined;
  for (;;) {
    for (const stage of failure ? [] : [...waiting]) {
      if (running.size >= Math.max(1, options.concurrency)) break;
      if (!needs.get(stage)!.every((name) => done.has(name))) continue;
      const memory = stage.memoryBytes?.(options.listings(), options.estimateContext) ?? 0;
      const held = [...running.values()].reduce((sum, entry) => sum + entry.memory, 0);
      if (running.size > 0 && held + memory > options.memoryBytes) continue;
      waiting.splice(waiting.indexOf(stage), 1);
      options.onStart?.(stage);
      const settled = options.run(stage).then(
        () => {
          done.add(stage.name);
          return stage;
        },
        (error: unknown) => {
          failure ??= { error };
          return stage;
        },
      );
      running.set(stage, { memory, settled });
    }
    if (running.size === 0) break;
    const ended = await Promise.race([...running.values()].map((entry) => entry.settled));
    running.delete(ended);
    options.onEnd?.(ended);
  }
  if (failure) throw failure.error;
  if (waiting.length > 0) throw new Error(`stages that wait for each other or for themselves: ${waiting.map((stage) => stage.name).join(', ')}`);
}

const REPO_ROOT = resolve(import.meta.dirname, '..');
/** Everything of the checkout that shapes a build's output: a deploy of new code rebuilds even on unchanged data. */
const CODE_PATHS = ['build', 'src', 'site', 'models', 'public', 'astro.config.mjs', 'package-lock.json'];

function hashTree(hash: ReturnType<typeof createHash>, path: string): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) if (name !== 'node_modules' && !name.startsWith('.')) hashTree(hash, join(path, name));
    return;
  }
  hash.update(path.slice(REPO_ROOT.length)).update('\0').update(readFileSync(path)).update('\0');
}

/**
 * The code that shapes what ingest and the stages make of the data: a store written by the same code is reused row by
 * row (ingest-stage.ts), whichever command wrote it (`catalog ingest`, `build`, `rebuild`).
 */
export function codeFingerprint(): string {
  const hash = createHash('sha256');
  for (const path of CODE_PATHS) hashTree(hash, join(REPO_ROOT, path));
  return hash.digest('hex');
}

/** What a page's template and the renderer make of its inputs depends on: the code and the public origin. */
function renderFingerprint(baseUrl: string, code: string): string {
  return createHash('sha256').update(`${baseUrl}\0${code}`).digest('hex');
}

/** What a build's output depends on: the snapshot, the public origin, the search counters, the code, the model. */
function buildFingerprint(
  db: CatalogDb,
  render: string,
  model: string | undefined,
  searchTrend: ReadonlyMap<string, number>,
  stages: Stage[],
  gone: ReadonlyMap<string, string> = new Map(),
): string {
  const hash = createHash('sha256');
  const meta = readMeta(db);
  hash.update(JSON.stringify({ snapshot: meta.snapshotHash, historyEnd: meta.historyEnd, render, model: model ?? '', stages: stages.map((s) => s.name) }));
  for (const [id, value] of [...searchTrend.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${id}=${value};`);
  for (const [id, day] of [...gone.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`gone:${id}=${day};`);
  return hash.digest('hex');
}

/** Clock ticks per second of /proc's CPU fields: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/**
 * CPU milliseconds used so far by this process (its worker threads included) and by its children that have ended
 * (the Astro renderers, esbuild): on a shared machine the wall time of a stage says more about the load than the work.
 */
export function cpuMillis(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // /proc/self/stat: fields 16 and 17 (cutime, cstime) after the command name, which may hold spaces.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    children = ((Number(fields[13]) || 0) + (Number(fields[14]) || 0)) * (1000 / USER_HZ);
  } catch {
    // Not Linux: the children's time is not known, the process's own is.
  }
  return Math.round((own.user + own.system) / 1000 + children);
}

export async function runBuild(options: BuildOptions): Promise<BuildResult> {
  const startedAt = performance.now();
  const dirs = buildDirs(options.dataDir);
  const timings: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const output = options.output ?? process.stderr;
  // Bars only on a terminal; elsewhere (cron, CI logs, pipes) a line when a stage starts and ends and, while it runs,
  // one every few seconds with what it is doing, so a log shows where a long build is.
  const bars =
    options.quiet || !output.isTTY
      ? undefined
      : new cliProgress.MultiBar(
          { format: '{stage} [{bar}] {percentage}% {value}/{total} {duration_formatted}', hideCursor: true, clearOnComplete: false },
          cliProgress.Presets.shades_classic,
        );
  const log = (message: string) => {
    if (options.quiet) return;
    if (bars) bars.log(`${message}\n`);
    else output.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
  };
  const everyMs = options.progressEveryMs ?? 5000;
  const timed = async <T>(
    name: string,
    work: (progress: (done: number, total: number, what?: string) => void) => Promise<T>,
    // Stages that may run side by side have their CPU counted by runStages' groups.
    counted: { cpu: boolean } = { cpu: true },
  ): Promise<T> => {
    const bar = bars?.create(1, 0, { stage: name.padEnd(10) });
    const started = performance.now();
    const cpuStarted = cpuMillis();
    const state = { done: 0, total: 0, what: '' };
    const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
    const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
    if (!bars) log(`${name}: started`);
    const ticker =
      bars || options.quiet
        ? undefined
        : setInterval(() => {
            const share =
              state.total > 0
                ? `${state.done.toLocaleString('en-US')}/${state.total.toLocaleString('en-US')} ${state.what || 'done'} (${Math.floor((100 * state.done) / state.total)} %), `
                : '';
            log(`${name}: ${share}${seconds()} s so far, rss ${mib(process.memoryUsage.rss())}`);
          }, everyMs);
    ticker?.unref();
    try {
      const result = await work((done, total, what) => {
        state.done = done;
        state.total = total;
        if (what !== undefined) state.what = what;
        bar?.setTotal(total);
        bar?.update(done);
      });
      timings[name] = Math.round(performance.now() - started);
      if (counted.cpu) cpu[name] = cpuMillis() - cpuStarted;
      log(`${name}: done in ${seconds()} s`);
      return result;
    } catch (error) {
      timings[name] = Math.round(performance.now() - started);
      log(`${name}: failed after ${seconds()} s`);
      throw error instanceof BuildStageError ? error : new BuildStageError(name, error);
    } finally {
      if (ticker) clearInterval(ticker);
      bar?.stop();
    }
  };

  let report: IngestReport | undefined;
  let buildDir: string | undefined;
  // The builds the last switch set aside are removed by a low-priority process beside this build's stages: off the
  // path of both that build and this one. A failure to remove them fails no build; the next retries.
  const trashStarted = performance.now();
  let trashPending = true;
  const trashRemoved = removeTrash(dirs)
    .catch((error: unknown) => {
      output.write(`warning: replaced builds under ${dirs.buildsDir} were not all removed: ${error instanceof Error ? error.message : String(error)}\n`);
      return undefined;
    })
    .finally(() => (trashPending = false));
  try {
    const code = codeFingerprint();
    const render = renderFingerprint(options.baseUrl, code);
    if (options.exportPath) {
      const exportPath = options.exportPath;
      report = await timed('ingest', async () =>
        ingest({
          exportPath,
          database: dirs.database,
          skipInvalid: options.skipInvalid,
          rejectsPath: options.rejectsPath,
          ...(options.filesDir ? { filesDir: options.filesDir } : {}),
          ...(options.historyEnd ? { historyEnd: options.historyEnd } : {}),
          codeFingerprint: code,
        }),
      );
      log(
        `ingest: ${report.listings} listings (${report.added} added, ${report.changed} changed, ${report.removed} removed, ${report.rejected.length} rejected), store written ${report.written}`,
      );
    }
    const db = openCatalogDb(dirs.database);
    try {
      // searchTrend folds in the shim's counters of the recent window: Redis when the shims share one
      // (the same REDIS_URL the shim reads), else <data>/signals.db.
      const searchTrend = options.searchTrend ?? (await readSearchTrend({ dataDir: dirs.dataDir, redisUrl: options.redisUrl || undefined }));
      const stages = options.stages ?? (await defaultStages());
      const fingerprint = buildFingerprint(db, render, options.embeddingModelDir, searchTrend, stages, options.gone);
      const serving = currentBuild(dirs);
      if (
        serving &&
        !options.force &&
        isCurrentRuntime(serving) &&
        existsSync(join(serving, BUILD_RECORD_FILE)) &&
        JSON.parse(readFileSync(join(serving, BUILD_RECORD_FILE), 'utf8')).fingerprint === fingerprint
      ) {
        // Same snapshot, origin, counters, code and model as the build being served (and readable): its output would be identical.
        log(`unchanged: ${serving} is current`);
        const runtime = readRuntimeManifest(join(serving, 'runtime'));
        return { buildDir: serving, unchanged: true, timings, cpu, ingest: report, runtime };
      }
      buildDir = newBuildDir(dirs);
      // Aborted by the first stage that fails: the stages beside it stop early (the renderers are killed).
      const stopping = new AbortController();
      const ctx: StageContext = {
        dirs,
        buildDir,
        baseUrl: options.baseUrl,
        db,
        runtimeOut: new RuntimeWriter(join(buildDir, 'runtime')),
        runtime: undefined,
        searchTrend,
        gone: options.gone,
        embeddingModelDir: options.embeddingModelDir,
        renderWorkers: options.renderWorkers,
        listings: report?.listings ?? (db.prepare('SELECT count(*) FROM listing').pluck().get() as number),
        changedListings: report && report.added + report.changed + report.removed,
        // --force renders every page anew; otherwise pages that did not change are linked from the build being served.
        previousBuild: options.force ? undefined : serving,
        renderFingerprint: render,
        siteTops: new SiteTops(),
        signal: stopping.signal,
        progress: () => undefined,
        log,
      };
      const dir = buildDir;
      // A first start is told the runtime is complete before the pages are (server/first-build.ts stops listening
      // after the pages): the site stage may finish its pages before the embeddings are done beside it.
      const runtimeStages = new Set(stages.filter((stage) => stage.runtime).map((stage) => stage.name));
      const ended = new Set<string>();
      let pagesHeld: string[] | undefined;
      const runtimeDone = () => [...runtimeStages].every((name) => ended.has(name));
      const { onPagesReady } = options;
      if (onPagesReady) {
        ctx.pagesReady = (entries) => {
          if (runtimeDone()) onPagesReady(dir, entries);
          else pagesHeld = entries;
        };
      }
      let runtimeReported = false;
      // Stages that ran side by side share the process's CPU: it is counted per group (BuildResult.cpu).
      let group: { names: string[]; cpuAt: number } | undefined;
      let runningCount = 0;
      // A first start (nothing served yet) runs the stages one after the other, in the list's order: the runtime first,
      // so the API answers as early as it can, then the site stage alone, so the pages do; side by side, the renderers
      // would share the cores with the shards and discovery stages and every page would come later.
      const firstStart = !serving && options.onRuntimeReady !== undefined;
      const concurrency = firstStart ? 1 : stageConcurrency(options.stageConcurrency);
      // Stages that may run side by side start early what needs none of the stages they wait for (Stage.warm): the
      // site stage's renderers bundle the project while the index stage uses one core. One after the other, nothing
      // is started before its turn.
      const warmed = new Map<Stage, Warmed>();
      if (concurrency > 1) {
        for (const stage of stages) {
          const handle = stage.warm?.(ctx);
          if (handle) warmed.set(stage, handle);
        }
      }
      await runStages(stages, {
        concurrency,
        memoryBytes: options.stageMemoryBytes ?? STAGE_MEMORY_SHARE * totalmem(),
        listings: () => ctx.runtime?.count ?? 0,
        estimateContext: ctx,
        onStart: (stage) => {
          group ??= { names: [], cpuAt: cpuMillis() };
          group.names.push(stage.name);
          runningCount++;
        },
        onEnd: () => {
          if (--runningCount > 0 || !group) return;
          cpu[group.names.join('+')] = cpuMillis() - group.cpuAt;
          group = undefined;
        },
        run: async (stage) => {
          // Each stage its own progress (the operator's line per stage); what a stage records goes to the shared context.
          let progress: StageContext['progress'] = () => undefined;
          const own = new Proxy(ctx, {
            get: (target, key, receiver) => (key === 'progress' ? progress : Reflect.get(target, key, receiver)),
            set: (target, key, value) => Reflect.set(target, key, value),
          });
          try {
            await timed(
              stage.name,
              async (report) => {
                progress = report;
                const handle = warmed.get(stage);
                warmed.delete(stage);
                await stage.run(own, handle);
              },
              { cpu: false },
            );
          } catch (error) {
            stopping.abort(error);
            throw error;
          }
          ended.add(stage.name);
          if (!runtimeReported && runtimeStages.size > 0 && runtimeDone() && ctx.runtime) {
            runtimeReported = true;
            // A shim serving the build this one replaces may read this runtime now (preparableBuild), before the switch.
            writeFileSync(join(dir, RUNTIME_READY_FILE), '');
            if (ended.size < stages.length) options.onRuntimeReady?.(dir);
            if (pagesHeld && onPagesReady) onPagesReady(dir, pagesHeld);
            pagesHeld = undefined;
          }
        },
      })
        // What was started for a stage that never ran (the build failed before it) ends before the build directory
        // it writes into is removed.
        .finally(() => Promise.all([...warmed.values()].map((handle) => handle.discard())));
      if (!ctx.runtime) throw new Error('the build produced no runtime artifacts');
      writeFileSync(
        join(buildDir, BUILD_RECORD_FILE),
        JSON.stringify(
          {
            builtAt: new Date().toISOString(),
            baseUrl: options.baseUrl,
            fingerprint,
            renderFingerprint: render,
            timings,
            cpu,
            ingest: report && { ...report, rejected: report.rejected.length },
          },
          null,
          2,
        ),
      );
      switchCurrent(dirs, buildDir);
      const switchedMs = Math.round(performance.now() - startedAt);
      log(`switched: ${buildDir} is current after ${(switchedMs / 1000).toFixed(1)} s`);
      return { buildDir, unchanged: false, timings, cpu, switchedMs, ingest: report, runtime: ctx.runtime };
    } finally {
      db.close();
    }
  } catch (error) {
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
    throw error;
  } finally {
    if (trashPending) log('waiting for the removal of the replaced builds');
    const removal = await trashRemoved;
    if (removal && removal.count > 0) {
      const seconds = ((performance.now() - trashStarted) / 1000).toFixed(1);
      log(`removed ${removal.count} replaced build${removal.count === 1 ? '' : 's'} at nice ${removal.niceness ?? 'unknown'} in ${seconds} s`);
    }
    bars?.stop();
  }
}

export { currentBuild, buildDirs };
