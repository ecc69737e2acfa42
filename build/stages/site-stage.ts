// The "site" stage: the Astro project at the top of the repository (astro.config.mjs, site/pages) → every page of
// the site, prerendered from this build's runtime artifacts, plus the server bundle of the one on-demand page
// (/browse). Astro runs in child processes (build/astro-build.ts), one per core for a large catalog, each rendering
// a share of the listing and owner pages: their memory is returned when they exit, their global state (NODE_ENV,
// Vite) stays out of the build's process, and their inputs are plain environment variables.
//   <buildDir>/astro/client → <buildDir>/site   the static handler's root; later stages add their files to it
//   <buildDir>/astro/server                     entry.mjs, imported by the shim for /browse
// Large pages, styles and scripts then get .br and .gz siblings, which the static handler serves by Accept-Encoding.
import { fork } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, opendirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { availableParallelism, totalmem } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Stage, StageContext, Warmed } from './stage.ts';
import { LARGE_FILE_COMPRESSION } from '../site-writer.ts';
import { isSharePage } from '../page-compression.ts';
import { PageCarrier } from '../page-carrier.ts';
import { fileLines } from '../../src/artifacts/file-lines.ts';

/** The Astro project: the repository root. */
export const SITE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = fileURLToPath(new URL('../astro-build.ts', import.meta.url));

/**
 * The large generated files' levels (brotli 5, gzip 6, decision 015): the strongest were barely smaller and many times
 * slower on these pages too (same record).
 */
export const PAGE_COMPRESSION = LARGE_FILE_COMPRESSION;
/** zlib work runs on libuv's thread pool (4 threads by default); more in flight only queues. */
const IN_FLIGHT = 8;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

export interface AstroBuildReport {
  /** Pages (.html) the renderer wrote; `sharePages` of them its share's listing and owner pages, the rest every share's. */
  pages: number;
  sharePages: number;
  seconds: number;
  maxRssKB: number;
}

export interface SiteStats extends Omit<AstroBuildReport, 'sharePages'> {
  /** Astro processes that rendered the pages at once (see renderPlan). */
  renderers: number;
  /** Shares of the listing and owner pages they rendered in turn. */
  shares: number;
  compressed: { files: number; bytes: number; brotliBytes: number; gzipBytes: number; seconds: number };
  /**
   * Listing and owner pages rendered, and linked unchanged from the build being replaced (carried): `seconds` the
   * stage waited for the links once the rendered pages were compressed, `linkSeconds` the linking thread's time.
   */
  incremental: { rendered: number; carried: number; seconds: number; linkSeconds: number };
}

/** What a renderer is given: its output, the runtime it reads, and the share of the pages it renders. */
export interface AstroBuildOptions {
  outDir: string;
  runtimeDir: string;
  baseUrl: string;
  /** "i/n": render the i-th of n shares of the listing and owner pages (src/page-model/page-data.ts inRenderShard). */
  shard?: string;
  /** The previous build's page inputs and site (src/page-model/page-data.ts pagePlan): pages whose inputs are the same are not rendered. */
  previous?: { pages: string; site: string } | undefined;
  /** Where the renderer writes its pages' inputs and whether it rendered each. */
  pageInputs?: string;
  /** Where the renderer lists the files it wrote that get .br and .gz (page-compression.ts). */
  compressList?: string;
  /** Kills the renderer (a stage beside the site's failed). */
  signal?: AbortSignal | undefined;
}

/** An `astro build` running in a child process (startAstroBuild). */
export interface AstroRenderer {
  /** The child's own figures once it has built; rejects when it fails or is stopped. */
  readonly report: Promise<AstroBuildReport>;
  /** Resolves once a gated renderer has started up and waits for go(); never when it fails before. */
  readonly waiting: Promise<void>;
  /** Lets a gated renderer read the runtime: from the moment it asks, or at once when it already has. */
  go(): void;
  /** Kills the renderer; resolves once it has exited. */
  stop(): Promise<void>;
  /** Told once the renderer has written its page inputs, before it renders. */
  onPageInputs?: ((path: string) => void) | undefined;
  onRendered?: ((pages: number) => void) | undefined;
}

/**
 * Starts `astro build` for this build in a child process. `gated`: the renderer imports Astro, loads the config and
 * bundles the project at once, then waits for go() before its first read of the runtime (CATALOG_RENDER_GATE,
 * src/page-model/page-data.ts loadCatalog), so it can start before the index stage has written the runtime.
 */
export function startAstroBuild(options: AstroBuildOptions & { gated?: boolean }): AstroRenderer {
  const child = fork(RUNNER, [SITE_ROOT, options.outDir], {
    cwd: SITE_ROOT,
    env: {
      ...process.env,
      // Astro would otherwise phone home on every build.
      ASTRO_TELEMETRY_DISABLED: '1',
      NODE_ENV: 'production',
      CATALOG_RUNTIME_DIR: options.runtimeDir,
      CATALOG_BASE_URL: options.baseUrl,
      ...(options.shard ? { CATALOG_RENDER_SHARD: options.shard } : {}),
      ...(options.previous ? { CATALOG_PREVIOUS_PAGES: options.previous.pages, CATALOG_PREVIOUS_SITE: options.previous.site } : {}),
      ...(options.pageInputs ? { CATALOG_PAGE_INPUTS: options.pageInputs } : {}),
      ...(options.compressList ? { CATALOG_COMPRESS_LIST: options.compressList } : {}),
      ...(options.gated ? { CATALOG_RENDER_GATE: '1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // A test runner's loader flags would make the child load vitest's hooks; the heap is held to the plan's bound.
    execArgv: [`--max-old-space-size=${RENDERER_HEAP_MIB}`],
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // Resolves once the process is gone (or never started): 'exit', unlike once(), waits past the abort's 'error'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  const gate = { open: !options.gated, waiting: false, reached: (): void => undefined };
  const letGo = () => {
    if (child.connected) child.send({ go: true });
  };
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let report: AstroBuildReport | undefined;
  const renderer: AstroRenderer = {
    waiting: new Promise<void>((resolve) => (gate.reached = resolve)),
    report: new Promise((resolve, reject) => {
      child.on('message', (message: { rendered?: number; pageInputs?: string; report?: AstroBuildReport; waiting?: boolean }) => {
        if (message.waiting) {
          gate.waiting = true;
          gate.reached();
          if (gate.open) letGo();
        }
        if (message.rendered !== undefined) renderer.onRendered?.(message.rendered);
        if (message.pageInputs !== undefined) renderer.onPageInputs?.(message.pageInputs);
        if (message.report) report = message.report;
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        const log = output.join('').trim();
        if (code === 0 && report) resolve(report);
        else reject(new Error(`astro build failed (${signal ?? `exit code ${code}`})${log ? `:\n${log.slice(-4000)}` : ''}`));
      });
    }),
    go() {
      if (gate.open) return;
      gate.open = true;
      if (gate.waiting) letGo();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
  // Awaited by the stage's run, or never when the renderer is stopped unused: its failure is not unhandled then.
  renderer.report.catch(() => undefined);
  return renderer;
}

/**
 * Writes .br and .gz next to each file that the renderers' lists (`lists`: files of paths relative to `root`, a line
 * each, as build/astro-build.ts writes them) name, once. Every share lists the pages outside its share (home,
 * categories, styles): those are compressed once. The stages beside this one write their own files with their own
 * .br and .gz at the same time; the lists name none of theirs.
 */
export async function precompress(
  root: string,
  lists: readonly string[],
  onProgress?: (done: number, total: number) => void,
): Promise<SiteStats['compressed']> {
  const started = performance.now();
  let total = 0;
  for (const list of lists) for (const _line of fileLines(list)) total++;
  const totals = { files: 0, bytes: 0, brotliBytes: 0, gzipBytes: 0 };
  // Paths outside the shares, which every share lists: a few hundred pages and assets, not one per listing.
  const common = new Set<string>();
  let seen = 0;
  function* paths(): Generator<string> {
    for (const list of lists) {
      for (const line of fileLines(list)) {
        const path = line.toString();
        if (!isSharePage(path)) {
          if (common.has(path)) {
            seen++;
            continue;
          }
          common.add(path);
        }
        yield path;
      }
    }
  }
  const files = paths();
  const worker = async () => {
    // The workers share one iterator: each takes the next file as it is free.
    for (let next = files.next(); !next.done; next = files.next()) {
      seen++;
      const file = join(root, next.value);
      const body = await readFile(file);
      const [br, gzipped] = await Promise.all([
        brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: PAGE_COMPRESSION.brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        gz(body, { level: PAGE_COMPRESSION.gzipLevel }),
      ]);
      await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gzipped)]);
      totals.files++;
      totals.bytes += body.length;
      totals.brotliBytes += br.length;
      totals.gzipBytes += gzipped.length;
      if (totals.files % 200 === 0) onProgress?.(seen, total);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  onProgress?.(total, total);
  return { ...totals, seconds: (performance.now() - started) / 1000 };
}

/**
 * Moves `from` to `to`, merging where `to` exists (another share wrote there): an entry that `to` lacks is renamed
 * whole (one rename for a page's folder, however many files it holds), a folder both have is merged entry by entry,
 * and a file both have is replaced by `from`'s (every share renders the same pages outside its share).
 */
export function mergeInto(from: string, to: string): void {
  if (!existsSync(to)) {
    renameSync(from, to);
    return;
  }
  const dir = opendirSync(from, { bufferSize: 256 });
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      try {
        // Replaces a file, or a folder that is not there or empty; a folder with entries is merged below.
        renameSync(source, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (!entry.isDirectory() || (code !== 'ENOTEMPTY' && code !== 'EEXIST')) throw error;
        mergeInto(source, target);
      }
    }
  } finally {
    dir.closeSync();
  }
  rmSync(from, { recursive: true, force: true });
}

/** Where a build keeps its listing and owner pages' inputs (in <buildDir>/astro), for the next build to compare with. */
export const PAGE_INPUTS_FILE = 'page-inputs.tsv';

/**
 * The page inputs of the build being replaced that the renderers may compare with (src/page-model/page-data.ts
 * pagePlan, which also checks that a page's file is still there, so that a page gone from it is rendered again).
 * Undefined, and nothing to compare with, when that build has none or rendered with other code or for another origin.
 */
async function previousPageInputs(previousBuild: string, renderFingerprint: string): Promise<string | undefined> {
  const path = join(previousBuild, 'astro', PAGE_INPUTS_FILE);
  if (!existsSync(path)) return undefined;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const line of lines) return line === `#render ${renderFingerprint}` ? path : undefined;
  } finally {
    lines.close();
  }
  return undefined;
}

/**
 * Writes the inputs of every page to `out` for the next build: for a carried page the variants its line names, for
 * a rendered one the .br and .gz the stage made of it. Counts each.
 */
async function writePageInputs(options: {
  site: string;
  renderFingerprint: string;
  inputs: string[];
  out: string;
}): Promise<{ rendered: number; carried: number }> {
  const writer = createWriteStream(options.out);
  writer.write(`#render ${options.renderFingerprint}\n`);
  let rendered = 0;
  let carried = 0;
  for (const path of options.inputs.filter((input) => existsSync(input))) {
    for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
      const [file, hash, owner, render, variants] = line.split('\t');
      if (!file || !hash || owner === undefined) continue;
      let made = variants ?? '';
      if (render === '0') carried++;
      else {
        rendered++;
        made = ['.br', '.gz'].filter((suffix) => existsSync(join(options.site, file + suffix))).join(',');
      }
      if (!writer.write(`${file}\t${hash}\t${owner}\t${made}\n`)) await once(writer, 'drain');
    }
  }
  writer.end();
  await once(writer, 'finish');
  return { rendered, carried };
}

/**
 * Moves the carried pages (linked under `carried` while the renderers ran) into `site`: each top folder of `carried`
 * (listings/, owners/) takes in the few rendered pages of site's, then replaces it, so the renames are as many as
 * the pages rendered, not the pages carried.
 */
function moveCarriedInto(carried: string, site: string): void {
  if (!existsSync(carried)) return;
  for (const name of readdirSync(carried)) {
    const rendered = join(site, name);
    if (existsSync(rendered)) mergeInto(rendered, join(carried, name));
    renameSync(join(carried, name), rendered);
  }
  rmSync(carried, { recursive: true, force: true });
}

/**
 * Listing and owner pages per Astro process. Rendering is single-threaded, so a large catalog's pages are split
 * between processes; a small one stays in one (each process bundles the project first, seconds of work).
 */
export const PAGES_PER_RENDERER = 10_000;
/**
 * The most listings one renderer holds whole in a full build (src/page-model/page-data.ts keeps only its share of the
 * listings whole and a small row of every other): a larger catalog is split into more shares than renderers, rendered
 * in turn, so a renderer's memory does not grow with the catalog beyond those rows. Each renderer reads every listing
 * once, so more shares cost CPU: this is the trade. An incremental build holds whole only the listings of the pages it
 * renders, whatever the catalog's size.
 */
export const LISTINGS_PER_SHARE = 50_000;
/** V8 old space of a renderer (--max-old-space-size, MiB): a renderer that would need more fails instead of swapping. */
export const RENDERER_HEAP_MIB = 2048;
/** What one renderer may take in all, heap and native memory, for the worker count (RENDERER_HEAP_MIB and a quarter). */
export const RENDERER_MEMORY_BYTES = RENDERER_HEAP_MIB * 1.25 * 2 ** 20;
/** The share of the machine's memory the renderers may take together; the rest is the build's own and the system's. */
export const RENDER_MEMORY_SHARE = 0.5;

export interface RenderPlan {
  /** Astro processes at once. */
  workers: number;
  /** Shares of the listing and owner pages, one process each (1: everything in one process, unsplit). */
  shares: number;
}

/**
 * How many renderers run at once and over how many shares: one per core, as many as half the machine's memory
 * holds at RENDERER_MEMORY_BYTES each, never more than there are shares (`workers` from --render-workers overrides
 * the machine's figures); shares of at most LISTINGS_PER_SHARE listings, and at least one per worker. `changed`: in
 * an incremental build, the listings the ingest added, changed or removed: when they are fewer than
 * PAGES_PER_RENDERER, one renderer and one share, as for a small catalog, at any size: every renderer bundles the
 * project, reads every listing and renders the pages outside the shares whatever else it renders, so for few changed
 * pages a second one costs about as much again and saves little (bench/records/2026-11-27-site-carry.md); and a
 * renderer of an incremental build holds whole only the listings of the pages it renders (page-data.ts pagePlan), so
 * one share's memory is bounded by the pages changed, not by LISTINGS_PER_SHARE. For more changes, an incremental
 * build's shares are as many as LISTINGS_PER_SHARE of the changed listings need, not of the catalog: every share's
 * renderer reads every listing, twice.
 */
export function renderPlan(
  listings: number,
  machine: { cores?: number; memoryBytes?: number; workers?: number | undefined; changed?: number | undefined } = {},
): RenderPlan {
  const fewChanged = machine.workers === undefined && machine.changed !== undefined && machine.changed < PAGES_PER_RENDERER;
  if (listings < PAGES_PER_RENDERER || fewChanged) return { workers: 1, shares: 1 };
  const cores = machine.cores ?? availableParallelism();
  const memoryBytes = machine.memoryBytes ?? totalmem();
  const byMemory = Math.max(1, Math.floor((memoryBytes * RENDER_MEMORY_SHARE) / RENDERER_MEMORY_BYTES));
  const wanted = machine.workers ?? Math.min(cores, byMemory);
  const workers = Math.max(1, Math.min(wanted, Math.ceil(listings / PAGES_PER_RENDERER)));
  // What a renderer holds whole: its share of the catalog in a full build, of the changed listings in an incremental one.
  const whole = machine.changed === undefined ? listings : Math.min(listings, machine.changed);
  const shares = Math.max(workers, Math.ceil(whole / LISTINGS_PER_SHARE));
  return { workers: Math.min(workers, shares), shares };
}

/** The renderers of a single machine (kept for callers that only ask how many work at once). */
export function rendererCount(listings: number, cores: number = availableParallelism()): number {
  return renderPlan(listings, { cores }).workers;
}

/** What a build's renderers are started with: known before the runtime is written, from the listings it will hold. */
interface RenderSetup {
  plan: RenderPlan;
  /** The previous build's page inputs to compare with (previousPageInputs); undefined: every page is rendered. */
  previousPages: string | undefined;
}

/** Where the renderer of `share` writes its pages' inputs, merged into PAGE_INPUTS_FILE at the end of the stage. */
const pageInputsOf = (buildDir: string, share: number) => join(buildDir, `page-inputs-${share}.tsv`);
/** Where a share's renderer lists its files that get .br and .gz (precompress). */
const compressListOf = (buildDir: string, share: number) => join(buildDir, `compress-${share}.txt`);

type RenderContext = Pick<StageContext, 'buildDir' | 'baseUrl' | 'renderWorkers' | 'changedListings' | 'previousBuild' | 'renderFingerprint' | 'signal'>;

async function renderSetup(ctx: RenderContext, listings: number): Promise<RenderSetup> {
  const previousPages =
    ctx.previousBuild !== undefined && ctx.renderFingerprint !== undefined ? await previousPageInputs(ctx.previousBuild, ctx.renderFingerprint) : undefined;
  // An incremental build's plan follows the listings its ingest changed (renderPlan).
  const plan = renderPlan(listings, { workers: ctx.renderWorkers, changed: previousPages !== undefined ? ctx.changedListings : undefined });
  return { plan, previousPages };
}

/**
 * What the renderer of `share` is given: one function for the renderers started early and those the run starts, so
 * that an early one is the one the run would have started. Share 0 writes <build>/astro (its server bundle is the one
 * kept); the others write beside it and are merged into site/ and removed as each ends, so the disk holds no more
 * than the workers' unmerged output.
 */
function rendererOptions(ctx: RenderContext, setup: RenderSetup, share: number): AstroBuildOptions {
  const outDir = join(ctx.buildDir, 'astro');
  return {
    outDir: share === 0 ? outDir : `${outDir}-${share}`,
    runtimeDir: join(ctx.buildDir, 'runtime'),
    baseUrl: ctx.baseUrl,
    ...(setup.plan.shares > 1 ? { shard: `${share}/${setup.plan.shares}` } : {}),
    ...(setup.previousPages !== undefined ? { previous: { pages: setup.previousPages, site: join(ctx.previousBuild!, 'site') } } : {}),
    pageInputs: pageInputsOf(ctx.buildDir, share),
    compressList: compressListOf(ctx.buildDir, share),
    signal: ctx.signal,
  };
}

/**
 * The renderers of a build's first shares, started once ingest is done (SITE_STAGE.warm) for the listings the store
 * holds: gated, they import Astro and bundle the project (seconds that do not depend on the catalog) while the index
 * stage writes the runtime, and read it once the stage's run lets them go.
 */
export class WarmRenderers implements Warmed {
  readonly started: Promise<{ setup: RenderSetup; renderers: AstroRenderer[] } | undefined>;
  private discarded = false;

  constructor(ctx: RenderContext, listings: number) {
    this.started = renderSetup(ctx, listings).then(
      (setup) => ({
        setup,
        renderers: this.discarded
          ? []
          : Array.from({ length: setup.plan.workers }, (_, share) => startAstroBuild({ ...rendererOptions(ctx, setup, share), gated: true })),
      }),
      // Nothing started: the run starts its renderers itself, and meets the error again if it is one.
      () => undefined,
    );
  }

  /** The renderers, when they were started with `setup`; else they are stopped and the run starts its own. */
  async take(setup: RenderSetup): Promise<AstroRenderer[]> {
    const early = await this.started;
    const same =
      early !== undefined &&
      early.setup.plan.workers === setup.plan.workers &&
      early.setup.plan.shares === setup.plan.shares &&
      early.setup.previousPages === setup.previousPages;
    if (same) return early.renderers;
    await this.discard();
    return [];
  }

  async discard(): Promise<void> {
    this.discarded = true;
    const early = await this.started;
    await Promise.all(early?.renderers.map((renderer) => renderer.stop()) ?? []);
  }
}

export async function buildSite(
  ctx: Pick<
    StageContext,
    | 'buildDir'
    | 'baseUrl'
    | 'runtime'
    | 'progress'
    | 'log'
    | 'renderWorkers'
    | 'changedListings'
    | 'previousBuild'
    | 'renderFingerprint'
    | 'pageEntries'
    | 'pagesReady'
    | 'siteTops'
    | 'signal'
  >,
  /** Renderers started before the runtime was written; used for the first shares when started for this plan. */
  warm?: WarmRenderers,
): Promise<SiteStats> {
  if (!ctx.runtime) throw new Error('the site stage needs the index stage to run first');
  const total = ctx.runtime.count;
  const outDir = join(ctx.buildDir, 'astro');
  // The renderers compare each listing and owner page's inputs with the previous build's and leave out the pages
  // that did not change; a thread links those in from it (under carried/, moved into site/ at the end) while the
  // renderers render the others.
  const renderFingerprint = ctx.renderFingerprint ?? '';
  const setup = await renderSetup(ctx, total);
  const { plan } = setup;
  const comparable = setup.previousPages !== undefined;
  const early = (await warm?.take(setup)) ?? [];
  if (warm && early.length === 0) ctx.log(`site: the renderers started early do not fit the runtime's ${total} listings; new ones start`);
  const rendered = new Array<number>(plan.shares).fill(0);
  const site = join(ctx.buildDir, 'site');
  const reports: AstroBuildReport[] = [];
  const carriedDir = join(ctx.buildDir, 'carried');
  const carrier = comparable ? new PageCarrier(join(ctx.previousBuild!, 'site'), carriedDir) : undefined;
  let nextShare = 0;
  const worker = async () => {
    while (nextShare < plan.shares) {
      ctx.signal?.throwIfAborted();
      const share = nextShare++;
      const options = rendererOptions(ctx, setup, share);
      const dir = options.outDir;
      const renderer = early[share] ?? startAstroBuild(options);
      if (carrier) renderer.onPageInputs = (path) => carrier.carry(path);
      renderer.onRendered = (pages) => {
        rendered[share] = pages;
        const sum = rendered.reduce((a, b) => a + b, 0);
        ctx.progress(Math.min(sum, total), total, 'listing pages rendered');
      };
      // The runtime is written (the index stage is done): a renderer started early reads it from now on.
      renderer.go();
      reports[share] = await renderer.report;
      // Its names are the pages' side of site/ (site-tops.ts): a stage beside this one may not write under them.
      for (const top of readdirSync(join(dir, 'client'))) ctx.siteTops?.claim(top, 'pages');
      mergeInto(join(dir, 'client'), site);
      if (share !== 0) rmSync(dir, { recursive: true, force: true });
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: plan.workers }, worker));
  } catch (error) {
    await carrier?.close();
    throw error;
  }
  // Only share 0's server bundle is used from here on.
  for (const name of readdirSync(outDir)) if (name !== 'server') rmSync(join(outDir, name), { recursive: true, force: true });
  const seconds = (performance.now() - started) / 1000;
  // Every page is in site/ unless some are still to be linked from the previous build: a first start can serve them
  // while the rest of the build (compression, the later stages' files) goes on. The names at the top of site/ that a
  // stage beside this one writes its files under are not the pages'.
  const pagesIn = () => {
    const entries = readdirSync(site).filter((entry) => !ctx.siteTops?.isFiles(entry));
    for (const entry of entries) ctx.siteTops?.claim(entry, 'pages');
    ctx.pageEntries = new Set(entries);
    ctx.pagesReady?.(entries);
  };
  if (!comparable) pagesIn();
  // Each share's own pages, and once the pages every share renders (the renderers counted them as they listed them).
  const pages = reports.reduce((sum, report) => sum + report.sharePages, reports[0] ? reports[0].pages - reports[0].sharePages : 0);
  const astro: Omit<AstroBuildReport, 'sharePages'> = {
    pages,
    seconds,
    // At most `workers` renderers run at once: the sum of the largest peaks bounds what they held together.
    maxRssKB: reports
      .map((report) => report.maxRssKB)
      .sort((a, b) => b - a)
      .slice(0, plan.workers)
      .reduce((sum, kb) => sum + kb, 0),
  };
  const renderers = plan.workers;
  const lists = Array.from({ length: plan.shares }, (_, share) => compressListOf(ctx.buildDir, share));
  const compressed = await precompress(site, lists, (done, total) => ctx.progress(done, total, 'files compressed'));
  for (const list of lists) rmSync(list, { force: true });
  const carryStarted = performance.now();
  const inputs = Array.from({ length: plan.shares }, (_, share) => pageInputsOf(ctx.buildDir, share));
  if (carrier) {
    try {
      const linked = await carrier.done();
      moveCarriedInto(carriedDir, site);
      ctx.progress(linked, linked, 'unchanged pages linked');
    } finally {
      await carrier.close();
    }
  }
  const { rendered: renderedPages, carried } = await writePageInputs({ site, renderFingerprint, inputs, out: join(outDir, PAGE_INPUTS_FILE) });
  for (const path of inputs) rmSync(path, { force: true });
  if (comparable) pagesIn();
  // seconds: what the stage waited for the links after compressing; linkSeconds: the thread's own time, mostly overlapped.
  const incremental = { rendered: renderedPages, carried, seconds: (performance.now() - carryStarted) / 1000, linkSeconds: carrier?.seconds ?? 0 };
  // pages: every page of the site, the linked ones included.
  const stats: SiteStats = { ...astro, pages: astro.pages + carried, renderers, shares: plan.shares, compressed, incremental };
  writeFileSync(join(outDir, 'site-stats.json'), JSON.stringify(stats, null, 1));
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  ctx.log(
    `site: ${astro.pages} pages in ${astro.seconds.toFixed(1)} s by ${renderers} renderer${renderers === 1 ? '' : 's'} over ${plan.shares} share${plan.shares === 1 ? '' : 's'} (${Math.round(astro.pages / astro.seconds)} pages/s, astro peak RSS ${mib(astro.maxRssKB * 1024)}); ` +
      `${carried > 0 ? `${carried} unchanged listing and owner pages linked from the previous build in ${incremental.seconds.toFixed(1)} s; ` : ''}` +
      `compressed ${compressed.files} files ${mib(compressed.bytes)} → br ${mib(compressed.brotliBytes)}, gz ${mib(compressed.gzipBytes)} in ${compressed.seconds.toFixed(1)} s`,
  );
  return stats;
}

export const SITE_STAGE: Stage = {
  name: 'site',
  // The runtime's listings; it writes the pages' names of site/, beside the stages that write the others.
  after: ['index'],
  memoryBytes: (listings, ctx) => renderPlan(listings, { workers: ctx.renderWorkers }).workers * RENDERER_MEMORY_BYTES,
  // The renderers' start-up needs only the plan, known from the ingest's counts: it runs beside the index stage.
  warm: (ctx) => (ctx.listings === undefined ? undefined : new WarmRenderers(ctx, ctx.listings)),
  async run(ctx, warmed) {
    const warm = warmed instanceof WarmRenderers ? warmed : undefined;
    try {
      await buildSite(ctx, warm);
    } finally {
      // Those already ended are left as they are; any still running (the stage failed) are stopped.
      await warmed?.discard();
    }
  },
};
