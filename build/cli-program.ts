// The `catalog` command (entry: build/cli.ts): the command-line tool for builds and the daily cycle
// (docs/operations.md, Command-line tool).
// Human lines go to stdout (or one JSON document with --json), problems to stderr, progress bars to stderr
// when it is a terminal; the exit code says what happened (EXIT below, listed in --help).
import { spawn } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../src/config.ts';
import { pidFilePath } from '../src/artifacts/pid-file.ts';
import { buildDirs } from '../src/artifacts/build-dirs.ts';
import { exportCatalog } from './export-writer.ts';
import { ingest, IngestError, readIngestChanges, type IngestReport, type Reject } from './stages/ingest-stage.ts';
import { mirror, MirrorError } from './mirror/mirror.ts';
import { resolveServeTarget } from './mirror/serve-target.ts';
import { MirrorUrlError } from './mirror/mirror-build.ts';
import { BuildStageError, codeFingerprint, cpuMillis, runBuild, type BuildResult } from './build-pipeline.ts';
import { NotifyError, reloadOverHttp, signalFromPidFile, signalShim, type NotifyResult } from './cycle/notify.ts';
import { progressBar } from './cycle/progress.ts';
import { DownloadError, downloadExport, isUrl } from './cycle/remote-export.ts';
import { collect, CollectError, ShrinkError, type CollectReport } from './collect/collect.ts';
import { SourcesFileError } from './collect/sources-file.ts';
import type { PagesReadyMessage, RuntimeReadyMessage } from '../src/artifacts/build-messages.ts';

/** The shim's serve entry, run as a child process by `serve`. */
const SERVE_ENTRY = resolve(import.meta.dirname, '..', 'server', 'serve.ts');

export const EXIT = {
  ok: 0,
  failed: 1,
  invalidRecords: 2,
  fetchFailed: 3,
  notifyFailed: 4,
  shrinkRefused: 5,
  usage: 64,
  config: 78,
  interrupted: 130,
} as const;

const EXIT_HELP = `
Exit codes:
  0    success (also when the export was unchanged and nothing had to be re-ingested)
  1    failure (an unexpected error; the message is on stderr)
  2    invalid records: the export has records that fail validation; nothing was written
       (--skip-invalid ingests the rest and writes the rejects to a file)
  3    a download failed or a fetched file did not match its SHA-256 (mirror, ingest from a URL);
       files already verified are kept, run the same command again to resume
  4    rebuild: the new build is in place but the running shim could not be told to switch
  5    collect: a source would lose more than maxShrink of its listings; nothing was written
       (--allow-shrink accepts it)
  64   usage error: unknown command or option, missing argument
  78   configuration error: an environment variable has an invalid value
  130  interrupted (Ctrl-C); mirror resumes where it stopped when run again

Environment: CATALOG_DATA_DIR (default .catalog), CATALOG_EXPORT, PUBLIC_BASE_URL, REDIS_URL, and for
rebuild --url the staff token in CATALOG_STAFF_TOKEN (instead of --token, which other users can see in ps);
collect reads GITHUB_TOKEN and SKILLS_API_KEY (names set per source in the sources file).
`;

class UsageError extends Error {}

const program = new Command()
  .name('catalog')
  .description('Build and maintain the catalog: ingest snapshot exports, build, rebuild daily, mirror and serve offline copies.')
  .addHelpText('after', EXIT_HELP)
  .showHelpAfterError('(run catalog --help for usage)')
  .exitOverride();

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const nonNegativeInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
};
const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
};

const dataOption = () => new Option('--data <dir>', 'data directory (default: CATALOG_DATA_DIR or .catalog)');

function config(opts: { data?: string }, overrides: Partial<Config> = {}): Config {
  return loadConfig(process.env, { ...(opts.data ? { dataDir: resolve(opts.data) } : {}), ...overrides });
}

const short = (hash: string) => hash.slice(0, 12);

function printRejects(rejects: Reject[]): void {
  for (const reject of rejects.slice(0, 50)) console.error(`${reject.file}:${reject.line}: ${reject.reason}`);
  if (rejects.length > 50) console.error(`… and ${rejects.length - 50} more`);
}

function ingestLines(report: IngestReport, source: string): string[] {
  if (report.snapshotUnchanged) {
    return [`ingest: unchanged — ${source} holds the snapshot already ingested (${report.listings} listings, snapshot ${short(report.snapshotHash)})`];
  }
  const lines = [
    `ingest: ${report.listings} listings, ${report.files} stored files from ${source} (snapshot ${short(report.snapshotHash)})`,
    `  added ${report.added}, changed ${report.changed}, removed ${report.removed}, unchanged ${report.unchanged}, rejected ${report.rejected.length}; store written ${report.written}`,
  ];
  const shown = 10;
  for (const kind of ['added', 'changed', 'removed'] as const) {
    const ids = report.changes?.[kind] ?? [];
    if (ids.length === 0) continue;
    lines.push(`  ${kind}: ${ids.slice(0, shown).join(', ')}${ids.length > shown ? `, … and ${ids.length - shown} more` : ''}`);
  }
  return lines;
}

/** The ingest report as --json prints it: counts, ids per change, and every reject. */
function ingestJson(report: IngestReport): Record<string, unknown> {
  const { changes, rejected, ...counts } = report;
  return { ...counts, rejected: rejected.length, rejects: rejected, changes: changes ?? null };
}

/** A local path or a URL, downloaded first; `done` removes the download. */
async function localExport(source: string, quiet: boolean | undefined): Promise<{ path: string; done(): void }> {
  if (!isUrl(source)) {
    const path = resolve(source);
    if (!existsSync(path)) throw new UsageError(`no export at ${path}`);
    return { path, done: () => undefined };
  }
  const bar = progressBar('download', quiet);
  try {
    const downloaded = await downloadExport(source, (done, total) => bar.update(done, total));
    return { path: downloaded.path, done: downloaded.cleanup };
  } finally {
    bar.stop();
  }
}

program
  .command('ingest')
  .description(
    "add a snapshot export (JSON Lines, JSON array or YAML list; a path or an http(s) URL) to the SQLite store, keeping each listing's daily install history",
  )
  .argument('<export>', 'export file or URL (.jsonl, .json, .yaml, optionally .gz; else detected from the content)')
  .addOption(dataOption())
  .option('--skip-invalid', 'ingest the valid records and write the rejects to a file')
  .option('--rejects <path>', 'where --skip-invalid writes the rejected records', 'rejects.jsonl')
  .option('--history-end <day>', 'day (YYYY-MM-DD) of the last history value of records without metrics.installsAsOf')
  .option('--json', 'print the report as one JSON document (counts, ids added/changed/removed, rejects)')
  .option('--quiet', 'no progress bars')
  .action(async (source: string, opts: { data?: string; skipInvalid?: boolean; rejects: string; historyEnd?: string; json?: boolean; quiet?: boolean }) => {
    if (opts.historyEnd !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.historyEnd)) throw new UsageError('--history-end must be a day YYYY-MM-DD');
    const cfg = config(opts);
    const input = await localExport(source, opts.quiet);
    try {
      const report = await ingest({
        exportPath: input.path,
        database: buildDirs(cfg.dataDir).database,
        skipInvalid: opts.skipInvalid,
        rejectsPath: opts.skipInvalid ? resolve(opts.rejects) : undefined,
        historyEnd: opts.historyEnd,
        listChanges: true,
        // The next build's ingest then updates this store in place, leaving the unchanged rows as they are.
        codeFingerprint: codeFingerprint(),
      });
      if (report.rejected.length) printRejects(report.rejected);
      if (opts.json) console.log(JSON.stringify(ingestJson(report), null, 2));
      else for (const line of ingestLines(report, source)) console.log(line);
    } finally {
      input.done();
    }
  });

interface CollectCommandOptions {
  sources: string;
  out?: string;
  state?: string;
  data?: string;
  allowShrink?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** The collection as lines for a person: totals, then one line per source. */
function collectLines(report: CollectReport): string[] {
  const lines = [
    `collect: ${report.listings} listings, ${report.files} stored files into ${report.out}${report.exportChanged ? '' : ' (unchanged: byte-identical to the export in place)'}`,
    `  added ${report.added}, changed ${report.changed}, removed ${report.removed}, unchanged ${report.unchanged}${report.unconfirmed ? `, ${report.unconfirmed} kept from failed sources` : ''}${report.classified ? `, ${report.classified} categorised by the classifier` : ''} (${report.seconds.toFixed(1)} s)`,
  ];
  for (const source of report.sources) {
    const figures = [`${source.listings} listings`, `+${source.added} ~${source.changed} -${source.removed} =${source.kept}`, `${source.requests} requests`];
    if (source.notModified) figures.push(`${source.notModified} not modified`);
    if (source.rateLimitWaits) figures.push(`${source.rateLimitWaits} rate-limit waits`);
    if (source.warnings.length) figures.push(`${source.warnings.length} warnings`);
    lines.push(
      `  ${source.status === 'ok' ? 'ok    ' : 'FAILED'} ${source.id}${source.commit ? `@${source.commit}` : ''}: ${figures.join(', ')}${source.error ? ` — ${source.error}` : ''}`,
    );
  }
  return lines;
}

async function runCollect(opts: CollectCommandOptions, cfg: Config, out: string): Promise<CollectReport> {
  // A collection allocates far more than it keeps (every record parsed, merged and written once): V8's size-optimised
  // heap sizing keeps its memory near what it holds (docs/decisions: collector memory).
  setFlagsFromString('--optimize-for-size');
  const human = !opts.json && !opts.quiet;
  const report = await collect({
    sourcesFile: resolve(opts.sources),
    out,
    stateDir: resolve(opts.state ?? join(cfg.dataDir, 'collect-state')),
    allowShrink: opts.allowShrink,
    // Progress and warnings go to stderr, a plain line each, so piped output stays readable.
    log: human ? (line) => console.error(line) : () => undefined,
    onSource: human ? ({ id, phase, index, total }) => phase === 'start' && console.error(`[${index + 1}/${total}] ${id}`) : undefined,
  });
  return report;
}

program
  .command('collect')
  .description(
    'gather the catalog from the public sources named in a sources file (git repositories, awesome lists, the MCP registry, GitHub metadata, install counts, exports) into an export that ingest reads; a failed source keeps its listings',
  )
  .requiredOption('--sources <file>', 'sources file (YAML; see collect.sources.example.yaml)')
  .option(
    '--out <export>',
    'export to write (default <data>/collected/listings.jsonl); files/ and build-summary.json are written beside it, the previous export kept as *.previous.jsonl',
  )
  .option('--state <dir>', 'state directory: what each source last read, ETags, high-water marks, clones (default <data>/collect-state)')
  .addOption(dataOption())
  .option('--allow-shrink', "accept a collection that removes more than maxShrink of a source's listings")
  .option('--json', 'print the report as one JSON document (per source: listings added/changed/removed/kept, requests, 304s, rate-limit waits, warnings)')
  .option('--quiet', 'no progress lines')
  .action(async (opts: CollectCommandOptions) => {
    const cfg = config(opts);
    const out = resolve(opts.out ?? join(cfg.dataDir, 'collected', 'listings.jsonl'));
    const report = await runCollect(opts, cfg, out);
    if (opts.json) console.log(JSON.stringify(report, null, 2));
    else for (const line of collectLines(report)) console.log(line);
  });

interface BuildCommandOptions {
  data?: string;
  export?: string;
  ingest: boolean;
  skipInvalid?: boolean;
  rejects: string;
  quiet?: boolean;
  force?: boolean;
  renderWorkers?: number;
  stageConcurrency?: number;
}

async function buildFromOptions(opts: BuildCommandOptions, cfg: Config): Promise<BuildResult> {
  const source = opts.ingest ? (opts.export ?? cfg.exportPath) : undefined;
  const input = source === undefined ? undefined : await localExport(source, opts.quiet);
  try {
    const result = await runBuild({
      dataDir: cfg.dataDir,
      exportPath: input?.path,
      baseUrl: cfg.baseUrl,
      redisUrl: cfg.redisUrl,
      embeddingModelDir: cfg.embeddingModelDir,
      skipInvalid: opts.skipInvalid,
      rejectsPath: opts.skipInvalid ? resolve(opts.rejects) : undefined,
      // Stage lines (bars on a terminal) on stderr; --quiet leaves errors and the summary printed after the build.
      quiet: opts.quiet,
      force: opts.force,
      renderWorkers: opts.renderWorkers,
      stageConcurrency: opts.stageConcurrency,
      // Started with an IPC channel (the shim's first start): say when the API can answer from the build, and when
      // the pages can.
      ...(process.send
        ? {
            onRuntimeReady: (buildDir: string) => process.send?.({ type: 'runtime-ready', buildDir } satisfies RuntimeReadyMessage),
            onPagesReady: (buildDir: string, entries: string[]) => process.send?.({ type: 'pages-ready', buildDir, entries } satisfies PagesReadyMessage),
          }
        : {}),
    });
    if (result.ingest) {
      result.ingest.changes = result.ingest.snapshotUnchanged ? { added: [], changed: [], removed: [] } : readIngestChanges(result.ingest.database);
    }
    return result;
  } finally {
    input?.done();
    // Nothing more to say to the parent: an open channel would keep this process from ending.
    if (process.connected) process.disconnect();
  }
}

function buildLines(result: BuildResult, source: string | undefined): string[] {
  const lines = result.ingest ? ingestLines(result.ingest, source ?? 'the export') : ['ingest: skipped (--no-ingest), built from the existing database'];
  if (result.unchanged) {
    lines.push(`unchanged: ${result.buildDir} already serves this snapshot, origin, search counters and code (--force builds anyway)`);
    return lines;
  }
  lines.push(`built ${result.runtime.count} listings into ${result.buildDir}`);
  lines.push(
    `  ${Object.entries(result.timings)
      .map(([stage, ms]) => `${stage} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}`,
  );
  return lines;
}

/** The site stage's own figures (its renderers are other processes): what --report adds to the build's. */
function siteFigures(buildDir: string): { renderers?: number; renderersMaxRssKB?: number; pagesRendered?: number; pagesCarried?: number } {
  const file = join(buildDir, 'astro', 'site-stats.json');
  if (!existsSync(file)) return {};
  const stats = JSON.parse(readFileSync(file, 'utf8')) as { renderers: number; maxRssKB: number; incremental?: { rendered: number; carried: number } };
  return {
    renderers: stats.renderers,
    renderersMaxRssKB: stats.maxRssKB,
    pagesRendered: stats.incremental?.rendered,
    pagesCarried: stats.incremental?.carried,
  };
}

program
  .command('build')
  .description(
    'ingest the configured export (CATALOG_EXPORT) and run the full build, then switch <data>/current to it; an export equal to the stored snapshot is not re-ingested',
  )
  .addOption(dataOption())
  .option('--export <path>', 'snapshot export to ingest (file or http(s) URL)')
  .option('--no-ingest', 'build from the existing database without ingesting')
  .option('--skip-invalid', 'ingest the valid records and write the rejects to a file')
  .option('--rejects <path>', 'where --skip-invalid writes the rejected records', 'rejects.jsonl')
  .option('--quiet', 'only errors and the summary: no stage lines or progress bars')
  .option('--report', 'print a JSON line with stage timings and peak memory (for benchmarks)')
  .option('--force', 'build even when nothing changed since the build being served')
  .addOption(
    new Option('--render-workers <n>', 'Astro render processes at once (default: one per core, as many as half the memory holds at 2.5 GiB each)').argParser(
      positiveInt,
    ),
  )
  .addOption(
    new Option(
      '--stage-concurrency <n>',
      'build stages at once after the index (1: one after the other; default: one per core, at least 2, as the memory allows)',
    ).argParser(positiveInt),
  )
  .action(async (opts: BuildCommandOptions & { report?: boolean }) => {
    const cfg = config(opts);
    const result = await buildFromOptions(opts, cfg);
    if (result.ingest?.rejected.length) printRejects(result.ingest.rejected);
    for (const line of buildLines(result, opts.export ?? cfg.exportPath)) console.log(line);
    if (opts.report)
      console.log(
        JSON.stringify({
          timings: result.timings,
          cpu: result.cpu,
          switchedMs: result.switchedMs,
          cpuMs: cpuMillis(),
          maxRssKB: process.resourceUsage().maxRSS,
          ...siteFigures(result.buildDir),
        }),
      );
  });

program
  .command('rebuild')
  .description(
    'the daily job: ingest + build, then tell the running shim to switch (SIGHUP to --pid or the pid in <data>/shim.pid, or POST /api/v1/staff/reload with --url and a staff token)',
  )
  .addOption(dataOption())
  .option('--export <path>', 'snapshot export to ingest (file or http(s) URL; default CATALOG_EXPORT)')
  .addOption(
    new Option('--collect <sources>', 'collect first from this sources file into <data>/collected/listings.jsonl (or --export), then ingest that').conflicts(
      'ingest',
    ),
  )
  .option('--state <dir>', 'collect state directory (default <data>/collect-state)')
  .option('--allow-shrink', "collect: accept a collection that removes more than maxShrink of a source's listings")
  .option('--no-ingest', 'build from the existing database without ingesting')
  .option('--skip-invalid', 'ingest the valid records and write the rejects to a file')
  .option('--rejects <path>', 'where --skip-invalid writes the rejected records', 'rejects.jsonl')
  .addOption(new Option('--pid <pid>', 'send SIGHUP to this shim process').argParser(positiveInt).conflicts('url'))
  .option('--pid-file <path>', "read the shim's pid from this file (default <data>/shim.pid)")
  .option('--url <base>', 'switch the shim at this base URL through POST /api/v1/staff/reload')
  .option('--token <jwt>', 'staff Bearer token for --url (default CATALOG_STAFF_TOKEN)')
  .option('--no-notify', 'build only; do not tell any shim')
  .option('--force', 'build even when nothing changed since the build being served')
  .addOption(
    new Option('--render-workers <n>', 'Astro render processes at once (default: one per core, as many as half the memory holds at 2.5 GiB each)').argParser(
      positiveInt,
    ),
  )
  .addOption(
    new Option(
      '--stage-concurrency <n>',
      'build stages at once after the index (1: one after the other; default: one per core, at least 2, as the memory allows)',
    ).argParser(positiveInt),
  )
  .option('--json', 'print one JSON document: ingest report, build and how the shim was told')
  .option('--quiet', 'only errors and the summary: no stage lines or progress bars')
  .action(
    async (
      opts: BuildCommandOptions & {
        pid?: number;
        pidFile?: string;
        url?: string;
        token?: string;
        notify: boolean;
        json?: boolean;
        collect?: string;
        state?: string;
        allowShrink?: boolean;
      },
    ) => {
      const token = opts.token ?? process.env.CATALOG_STAFF_TOKEN;
      if (opts.url && !token) throw new UsageError('--url needs a staff token: --token <jwt> or CATALOG_STAFF_TOKEN');
      if (opts.url && !isUrl(opts.url)) throw new UsageError('--url must be an http(s) base URL');
      const cfg = config(opts);
      let collected: CollectReport | undefined;
      if (opts.collect) {
        if (opts.export && isUrl(opts.export)) throw new UsageError('--collect writes a local export: --export must be a path');
        const out = resolve(opts.export ?? join(cfg.dataDir, 'collected', 'listings.jsonl'));
        collected = await runCollect({ sources: opts.collect, state: opts.state, allowShrink: opts.allowShrink, json: opts.json, quiet: opts.quiet }, cfg, out);
        opts.export = out;
      }
      const result = await buildFromOptions(opts, cfg);
      if (result.ingest?.rejected.length) printRejects(result.ingest.rejected);
      const lines = [...(collected ? collectLines(collected) : []), ...buildLines(result, opts.export ?? cfg.exportPath)];

      let notified: NotifyResult = { via: 'none', reason: '--no-notify' };
      let notifyError: NotifyError | undefined;
      try {
        if (!opts.notify) {
          // --no-notify: the build is in place; whoever runs the shim switches it.
        } else if (opts.url) {
          notified = await reloadOverHttp(opts.url, token!);
          const serving = notified.via === 'http' ? notified.status.build : '';
          if (serving !== basename(result.buildDir)) {
            throw new NotifyError(
              `the shim at ${opts.url} serves build ${serving}, not the new ${basename(result.buildDir)} (is it serving another data directory?)`,
            );
          }
        } else if (opts.pid !== undefined) notified = signalShim(opts.pid);
        else notified = signalFromPidFile(opts.pidFile ? resolve(opts.pidFile) : pidFilePath(cfg.dataDir));
      } catch (error) {
        if (!(error instanceof NotifyError)) throw error;
        notifyError = error;
      }
      if (notifyError) lines.push(`shim: not switched: ${notifyError.message}`);
      else if (notified.via === 'signal') lines.push(`shim: sent SIGHUP to pid ${notified.pid}`);
      else if (notified.via === 'http') lines.push(`shim: ${opts.url} now serves ${notified.status.build} (${notified.status.count} listings)`);
      else lines.push(`shim: not told (${notified.reason}); it serves the new build from its next start`);

      if (opts.json) {
        console.log(
          JSON.stringify(
            {
              ...(collected ? { collect: collected } : {}),
              ingest: result.ingest ? ingestJson(result.ingest) : null,
              build: { dir: result.buildDir, listings: result.runtime.count, timings: result.timings },
              notify: notifyError ? { via: 'failed', error: notifyError.message } : notified,
            },
            null,
            2,
          ),
        );
      } else for (const line of lines) console.log(line);
      if (notifyError) process.exitCode = EXIT.notifyFailed;
    },
  );

program
  .command('mirror')
  .description(
    'fetch the published JSON shards and export of a running instance into <dir>, verifying every SHA-256; resumes an interrupted fetch; then builds the whole site from them, so `serve <dir>` serves everything the origin serves',
  )
  .argument('<base-url>', 'public base URL of the instance (it serves /shards/manifest.json)')
  .argument('<dir>', 'mirror directory (created; reused to resume)')
  .addOption(new Option('--concurrency <n>', 'files fetched at once').argParser(positiveInt).default(6))
  .addOption(new Option('--retries <n>', 'extra attempts per file that fails or does not verify').argParser(nonNegativeInt).default(2))
  .option('--public-url <url>', "the mirror's own public URL, in every absolute URL it serves (default PUBLIC_BASE_URL, else http://localhost:PORT)")
  .option('--no-build', 'only fetch and verify; `serve` builds the site on its first start')
  .option('--json', 'print the report as one JSON document')
  .option('--quiet', 'no progress bars')
  .action(
    async (
      baseUrl: string,
      dir: string,
      opts: { concurrency: number; retries: number; publicUrl?: string; build: boolean; json?: boolean; quiet?: boolean },
    ) => {
      if (!isUrl(baseUrl)) throw new UsageError('<base-url> must be an http(s) URL');
      if (opts.publicUrl !== undefined && !isUrl(opts.publicUrl)) throw new UsageError('--public-url must be an http(s) URL');
      const cfg = config({});
      const publicUrl = opts.publicUrl ?? cfg.baseUrl;
      const controller = new AbortController();
      const interrupt = () => controller.abort();
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      const files = progressBar('fetch', opts.quiet);
      try {
        const report = await mirror({
          baseUrl,
          dir: resolve(dir),
          publicUrl,
          concurrency: opts.concurrency,
          retries: opts.retries,
          build: opts.build,
          embeddingModelDir: cfg.embeddingModelDir,
          verbose: !opts.quiet && !opts.json,
          signal: controller.signal,
          onProgress: (done, total) => files.update(done, total),
        });
        files.stop();
        if (report.notBuilt && opts.json) console.error(`warning: not built: ${report.notBuilt}`);
        if (opts.json) console.log(JSON.stringify(report, null, 2));
        else {
          console.log(`mirror: ${report.listings} listings (snapshot ${short(report.snapshotHash)}) from ${report.origin} into ${report.dir}`);
          console.log(
            `  ${report.files} files verified: ${report.fetched} fetched (${(report.bytesFetched / 1e6).toFixed(1)} MB), ${report.kept} kept, ${report.repaired} repaired, ${report.removed} stale removed${report.rateLimited ? `, waited out the origin's rate limit ${report.rateLimited} times` : ''}`,
          );
          console.log(
            report.notBuilt
              ? `  not built: ${report.notBuilt}`
              : report.built
                ? `  site built for ${publicUrl}; serve it with: catalog serve ${dir}`
                : opts.build
                  ? `  site already built for ${publicUrl}`
                  : '  not built (--no-build); serve builds it on its first start',
          );
        }
      } finally {
        files.stop();
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
    },
  );

program
  .command('serve')
  .description('serve a mirror directory, a data directory or one build with the normal shim, read-only (no search counters)')
  .argument('<dir>', 'mirror directory (catalog mirror), data directory (with current/) or build directory')
  .addOption(new Option('--port <port>', 'port to listen on (default PORT or 8080)').argParser(port))
  .option('--host <host>', 'interface to bind (default HOST or 127.0.0.1)')
  .option('--public-url <url>', "a mirror's public URL: rebuilds its site when it differs from the one it was built for")
  .option('--quiet', 'no build logs')
  .action(async (dir: string, opts: { port?: number; host?: string; publicUrl?: string; quiet?: boolean }) => {
    if (opts.publicUrl !== undefined && !isUrl(opts.publicUrl)) throw new UsageError('--public-url must be an http(s) URL');
    const cfg = config({}, { ...(opts.port !== undefined ? { port: opts.port } : {}), ...(opts.host ? { host: opts.host } : {}) });
    const target = await resolveServeTarget(dir, {
      publicUrl: opts.publicUrl,
      defaultPublicUrl: cfg.baseUrl,
      embeddingModelDir: cfg.embeddingModelDir,
      verbose: !opts.quiet,
    });
    if (target.built) console.log(`built ${target.kind} ${dir}`);
    // The shim runs as its own process (the build never imports the server); signals pass through to it.
    const args = [
      SERVE_ENTRY,
      '--build-dir',
      target.buildDir,
      '--data-dir',
      target.dataDir,
      '--label',
      `${target.kind} ${dir}`,
      '--port',
      String(cfg.port),
      '--host',
      cfg.host,
    ];
    if (target.kind === 'data') args.push('--follow');
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
    const code = await new Promise<number>((done) => child.once('exit', (exitCode) => done(exitCode ?? EXIT.failed)));
    if (code !== 0) process.exit(code);
  });

program
  .command('export')
  .description('write the current catalog back in the export format (JSON Lines, .gz by name) with its stored files; round-trips with ingest')
  .argument('<file>', 'output file (.jsonl or .jsonl.gz); files/<slug>/ and build-summary.json are written beside it')
  .addOption(dataOption())
  .option('--with-history', "write each listing's whole kept daily history instead of its last export's window")
  .option('--json', 'print the report as one JSON document')
  .option('--quiet', 'no progress bars')
  .action(async (file: string, opts: { data?: string; withHistory?: boolean; json?: boolean; quiet?: boolean }) => {
    const cfg = config(opts);
    const { database } = buildDirs(cfg.dataDir);
    if (!existsSync(database)) throw new UsageError(`no catalog in ${cfg.dataDir}; run catalog ingest first`);
    const bar = progressBar('export', opts.quiet);
    const report = await exportCatalog({ database, out: file, withHistory: opts.withHistory, onProgress: (done, total) => bar.update(done, total) }).finally(
      () => bar.stop(),
    );
    if (opts.json) console.log(JSON.stringify(report, null, 2));
    else console.log(`export: ${report.listings} listings and ${report.files} stored files (snapshot ${short(report.snapshotHash)}) into ${report.path}`);
  });

function exitCodeOf(failure: unknown): number {
  // A build names the stage that failed; the exit code is the stage's own error's.
  const error = failure instanceof BuildStageError ? failure.cause : failure;
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof ConfigError) return EXIT.config;
  if (error instanceof IngestError) return EXIT.invalidRecords;
  if (error instanceof MirrorUrlError) return EXIT.usage;
  if (error instanceof MirrorError || error instanceof DownloadError) return EXIT.fetchFailed;
  if (error instanceof ShrinkError) return EXIT.shrinkRefused;
  if (error instanceof SourcesFileError || error instanceof CollectError) return EXIT.usage;
  if ((error as { name?: unknown } | undefined)?.name === 'AbortError') return EXIT.interrupted;
  return EXIT.failed;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = exitCodeOf(error);
  // Commander printed its own message (and the help hint) already.
  if (!(error instanceof CommanderError)) {
    const cause = error instanceof BuildStageError ? error.cause : error;
    if (cause instanceof IngestError) printRejects(cause.rejects);
    if (code === EXIT.interrupted) console.error('interrupted; run the same command again to resume');
    else console.error(error instanceof Error ? error.message : error);
  }
  process.exit(code);
}
