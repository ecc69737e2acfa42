// Benchmark plumbing: scale catalogs cached by (count, seed), child processes for builds and servers,
// autocannon and wrk runs, and /proc readings. Figures are compared within one run, never against fixed times.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../src/net/free-port.ts';

export const BENCH_DIR = resolve(process.env.CATALOG_BENCH_DIR ?? '.catalog-bench');
export const ROOT = resolve(import.meta.dirname, '..');

export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}

/** A generated export of `count` listings (cached), next to a build-summary.json giving the history end. */
export async function scaleExport(count: number, seed = 1): Promise<string> {
  const dir = join(BENCH_DIR, `export-${count}-${seed}`);
  const path = join(dir, 'listings.jsonl');
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const result = await run(process.execPath, ['build/scale/generate-catalog.ts', '--count', String(count), '--seed', String(seed), '--out', path]);
  if (result.code !== 0) throw new Error(`generator failed: ${result.stderr}`);
  copyFileSync(join(ROOT, 'data/build-summary.json'), join(dir, 'build-summary.json'));
  return path;
}

export interface BuildFigures {
  seconds: number;
  /** Seconds until `current` moved to the new build (the report's switchedMs); the command may end later (removeTrash). */
  liveSeconds: number | undefined;
  /** The build's own process. */
  peakRssMB: number;
  /** The Astro renderers' peaks, summed over those that ran at once (0 when the site stage did not run). */
  renderersPeakRssMB: number;
  renderers: number;
  /** Listing and owner pages rendered, and carried over unchanged from the build replaced (0 when the site stage did not run). */
  pagesRendered: number;
  pagesCarried: number;
  stages: Record<string, number>;
  /** CPU milliseconds per stage (the build's process and its ended children): the figure a shared machine keeps. */
  stagesCpu: Record<string, number>;
  /** The build process's CPU milliseconds in all (user + system, its children included). */
  cpuMs: number;
}

/**
 * A copy of an export with `percent` % of its listings changed (every (100/percent)-th record gains one install,
 * its history's last day with it), written beside it so its stored files and build summary apply; streamed.
 */
export async function changedExport(exportPath: string, percent: number): Promise<string> {
  const out = exportPath.replace(/\.jsonl$/, `-changed-${percent}.jsonl`);
  const every = Math.round(100 / percent);
  const file = createWriteStream(out);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(exportPath), crlfDelay: Infinity })) {
    if (!line) continue;
    let text = line;
    if (n++ % every === 0) {
      const record = JSON.parse(line) as { installs: number; installsHistory?: number[] };
      record.installs += 1;
      if (record.installsHistory?.length) record.installsHistory[record.installsHistory.length - 1] = record.installs;
      text = JSON.stringify(record);
    }
    if (!file.write(`${text}\n`)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'close');
  return out;
}

/** Runs `catalog build` in a child process; returns wall time, peak RSS (its own and its renderers') and per-stage timings. */
export async function timedBuild(dataDir: string, exportPath: string | undefined, extraEnv: Record<string, string> = {}): Promise<BuildFigures> {
  const started = performance.now();
  const args = ['build/cli.ts', 'build', '--quiet', '--report'];
  if (!exportPath) args.push('--no-ingest');
  const result = await run(process.execPath, args, { CATALOG_DATA_DIR: dataDir, ...(exportPath ? { CATALOG_EXPORT: exportPath } : {}), ...extraEnv });
  if (result.code !== 0) throw new Error(`build failed (${result.code}): ${result.stderr.slice(-2000)}`);
  const seconds = (performance.now() - started) / 1000;
  const report = JSON.parse(
    result.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .at(-1) ?? '{}',
  );
  const ran = report.timings?.site !== undefined;
  return {
    seconds,
    liveSeconds: report.switchedMs === undefined ? undefined : report.switchedMs / 1000,
    peakRssMB: Math.round((report.maxRssKB ?? 0) / 1024),
    renderersPeakRssMB: ran ? Math.round((report.renderersMaxRssKB ?? 0) / 1024) : 0,
    renderers: ran ? (report.renderers ?? 0) : 0,
    pagesRendered: ran ? (report.pagesRendered ?? 0) : 0,
    pagesCarried: ran ? (report.pagesCarried ?? 0) : 0,
    stages: report.timings ?? {},
    stagesCpu: report.cpu ?? {},
    cpuMs: report.cpuMs ?? 0,
  };
}

export interface Served {
  child: ChildProcess;
  origin: string;
  /** Milliseconds from spawn until the first request was answered. */
  readyMs: number;
  rssMB(): number;
  peakRssMB(): number;
  stop(): Promise<void>;
}

/**
 * The environment (NAME=value before `node`) and Node flags `npm start` gives the shim (package.json is their one
 * home), so the bench runs what ships.
 */
export function startCommand(script: string): { env: Record<string, string>; flags: string[] } {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  if (!words.includes(script)) return { env: {}, flags: [] };
  const env = Object.fromEntries(words.slice(0, words.indexOf('node')).map((word) => word.split('=', 2) as [string, string]));
  return { env, flags: words.filter((word) => word.startsWith('--')) };
}

/** Spawns a server script (with the environment and flags `npm start` gives it) and waits until `probePath` answers 200. */
export async function serve(script: string, env: Record<string, string>, probePath = '/api/v1'): Promise<Served> {
  const port = await freePort();
  const started = performance.now();
  const start = startCommand(script);
  const child = spawn(process.execPath, [...start.flags, script], {
    cwd: ROOT,
    env: { ...process.env, ...start.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      const res = await fetch(origin + probePath);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - started;
  const status = (field: string) => {
    const text = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text);
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  };
  return {
    child,
    origin,
    readyMs,
    rssMB: () => status('VmRSS'),
    peakRssMB: () => status('VmHWM'),
    stop: () =>
      new Promise((resolvePromise) => {
        child.once('exit', () => resolvePromise());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(
  origin: string,
  paths: string[],
  options: { seconds?: number; connections?: number; method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<LoadFigures> {
  const result = await autocannon({
    url: origin,
    connections: options.connections ?? 16,
    duration: options.seconds ?? 10,
    requests: paths.map((path) => ({ method: (options.method ?? 'GET') as 'GET', path, body: options.body, headers: options.headers })),
  });
  return loadFigures(result);
}

export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/** A wrk latency figure ("115.00us", "1.46ms", "2.00s") in milliseconds. */
function wrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!match) throw new Error(`not a wrk latency: ${value}`);
  return Number(match[1]) * (match[2] === 'us' ? 1e-3 : match[2] === 's' ? 1e3 : 1);
}

/** The figures of a `wrk --latency` report. */
export function wrkFigures(report: string): LoadFigures {
  const figure = (pattern: RegExp) => pattern.exec(report)?.[1];
  const rate = figure(/^Requests\/sec:\s+([\d.]+)/m);
  const p50 = figure(/^\s+50%\s+(\S+)/m);
  const p99 = figure(/^\s+99%\s+(\S+)/m);
  if (rate === undefined || p50 === undefined || p99 === undefined) throw new Error(`not a wrk --latency report:\n${report}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  return {
    requestsPerSecond: Math.round(Number(rate)),
    p50: wrkMs(p50),
    p99: wrkMs(p99),
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(figure(/Non-2xx or 3xx responses:\s+(\d+)/) ?? 0),
  };
}

/** The Lua script giving wrk the request's method, body and headers. */
export function wrkScript(options: { method?: string; body?: string; headers?: Record<string, string> }): string {
  // A Lua long string holds any text as is (its first newline is dropped, so one is put there); spaced inside an
  // index, where "[[[" would read as a call.
  const lua = (value: string) => {
    let level = '';
    while (value.includes(`]${level}]`)) level += '=';
    return `[${level}[\n${value}]${level}]`;
  };
  return (
    [
      `wrk.method = ${lua(options.method ?? 'GET')}`,
      ...(options.body === undefined ? [] : [`wrk.body = ${lua(options.body)}`]),
      ...Object.entries(options.headers ?? {}).map(([name, value]) => `wrk.headers[ ${lua(name)} ] = ${lua(value)}`),
    ].join('\n') + '\n'
  );
}

/**
 * One path under load from wrk (C, one thread): for small answers a JavaScript client parsing every response's
 * headers becomes the bottleneck on two cores, and measured nginx answering a listing page with the front's headers
 * at 0.78x the same nginx with plain headers, where wrk measured 0.91x.
 */
export async function wrkLoad(
  origin: string,
  path: string,
  options: { seconds?: number; connections?: number; method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<LoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    writeFileSync(script, wrkScript(options));
    const args = ['-t1', `-c${options.connections ?? 16}`, `-d${options.seconds ?? 10}s`, '--latency', '-s', script, origin + path];
    const result = await run('wrk', args);
    if (result.code !== 0) throw new Error(`wrk ${args.join(' ')} failed: ${result.stderr}`);
    return wrkFigures(result.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures every load run reports, from an autocannon result. */
export function loadFigures(result: autocannon.Result): LoadFigures {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function table(rows: Array<Record<string, string | number>>): string {
  const keys = Object.keys(rows[0] ?? {});
  const width = keys.map((k) => rows.reduce((widest, r) => Math.max(widest, String(r[k]).length), k.length));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(width[i]!)).join('  ');
  return [line(keys), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(keys.map((k) => String(r[k]))))].join('\n');
}
