// What a listing search costs in CPU, measured so that two commits compare on a machine others are using too: each
// commit's code answers the same distinct long-tail searches (no answer cache can serve them) at the same moments,
// and the figures are CPU time, which does not count the time spent waiting for a core. It imports nothing of the
// trees it measures at the top, so it measures any commit: each --target names a checkout and a data directory
// built by that checkout's format.
//
//   node bench/search-cpu.ts pipeline --target before=/work/b0,/tmp/data-b0 --target after=.,/tmp/data [options]
//   node bench/search-cpu.ts http     --target before=... --target after=...  [--concurrency 8]
//   node bench/search-cpu.ts engine   --target after=.,/tmp/data
//
// pipeline: every target's whole request path (server/app.ts's pipeline: parameters, rate limit, route, search on
//   the same thread, body) in this one process, the targets taking turns request by request; per request the wall
//   time (this thread does nothing else), per round the median of the per-request ratios to the first target.
// http: every target's server (`npm start`'s command) on loopback, each path sent to each in turn; per server the
//   CPU time of its process (utime + stime, /proc/<pid>/stat) and of each of its threads (schedstat) per request.
// engine: the query engine alone (src/search), one target, the same searches repeated (process.cpuUsage).
//
// --paths FILE: run.mjs rows (`LABEL P1 | P2 | ...`, e.g. the bench-peers kit's longtail.py output), --row picks
// one (q-unique); without --paths, bench/longtail.ts's q-unique paths over data/listings.jsonl. The first
// --warmup paths warm up, then --rounds rounds of --n fresh paths each are measured.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { longTailPaths } from './longtail.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    target: { type: 'string', multiple: true, default: [] },
    paths: { type: 'string' },
    row: { type: 'string', default: 'q-unique' },
    n: { type: 'string', default: '1500' },
    warmup: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '1' },
    port: { type: 'string', default: '18190' },
    json: { type: 'string' },
  },
});
const mode = positionals[0] ?? 'pipeline';
const n = Number(values.n);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat. */
const TICK_MS = 10;

interface Target {
  label: string;
  tree: string;
  data: string;
}

/** `label=checkout,dataDir` for each --target. */
const targets: Target[] = values.target.map((spec) => {
  const [label, rest = ''] = spec.split('=') as [string, string | undefined];
  const [tree = '.', data = join(tree, '.catalog')] = rest.split(',');
  return { label, tree: resolve(tree), data: resolve(data) };
});
if (targets.length === 0) throw new Error('name at least one --target label=checkout,dataDir');

function rowPaths(): string[] {
  if (!values.paths) return longTailPaths(resolve(import.meta.dirname, '..', 'data', 'listings.jsonl'));
  for (const line of readFileSync(values.paths, 'utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (line.slice(0, space) === values.row)
      return line
        .slice(space + 1)
        .split(' | ')
        .map((path) => path.trim());
  }
  throw new Error(`no row ${values.row} in ${values.paths}`);
}

/** The paths of round `r` (-1: the warm-up). */
function slice(paths: string[], r: number): string[] {
  const part = r < 0 ? paths.slice(0, warmup) : paths.slice(warmup + r * n, warmup + (r + 1) * n);
  if (r >= 0 && part.length < n) throw new Error(`${paths.length} paths are too few for ${rounds} rounds of ${n} after ${warmup}`);
  return part;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: ArrayLike<number>) => Float64Array.from(xs).sort()[xs.length >> 1]!;
const digest = (lines: string[]) => createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);

/** The listing ids of an answer body in order (its text when it is not a listing page): what must not change. */
function answerKey(status: number, body: string): string {
  try {
    return `${status} ${((JSON.parse(body) as { items?: Array<{ id: string }> }).items ?? []).map((item) => item.id).join(',')}`;
  } catch {
    return `${status} ${body}`;
  }
}

/** Per target, round by round: milliseconds a request, and a digest of the answers (equal answers, equal digests). */
type Figures = Record<string, { msPerRequest: number[]; threads?: Array<Record<string, number>>; answers: string[] }>;

// ---- pipeline: the request path of several checkouts in this process -------------------------------------------

interface IncomingRequestLike {
  method: string;
  target: string;
  headers: Record<string, string>;
  remoteAddress: string;
  signal: AbortSignal;
  requiresHost: boolean;
  body(): Promise<Buffer>;
}
type PipelineOf = (request: IncomingRequestLike) => Promise<{ reply: { status: number; body?: Buffer | string } }>;

interface AppLike {
  pipeline: PipelineOf;
  services: { catalog: { current: unknown } };
  semantic: { load(snapshot: unknown): Promise<string> };
}

/** The target's pipeline; with its semantic index loaded first when `semantic` paths are measured (listen() would). */
async function pipelineOf(target: Target, semantic: boolean): Promise<PipelineOf> {
  const load = (path: string) => import(pathToFileURL(join(target.tree, path)).href);
  const [{ createApp }, { loadConfig }, { buildDirs, currentBuild }] = (await Promise.all([
    load('server/app.ts'),
    load('src/config.ts'),
    load('src/artifacts/build-dirs.ts'),
  ])) as [
    { createApp(config: unknown, options: { buildDir: string }): AppLike },
    { loadConfig(env: NodeJS.ProcessEnv): { dataDir: string } },
    { buildDirs(dataDir: string): unknown; currentBuild(dirs: unknown): string },
  ];
  // The keyword search runs on this thread (no worker): the request's whole cost is this thread's.
  const config = loadConfig({
    ...process.env,
    CATALOG_DATA_DIR: target.data,
    CATALOG_BUILD_ON_START: 'false',
    SEARCH_THREAD: 'false',
    RATE_LIMIT_MAX: '1000000000',
    SEARCH_SIGNALS: 'off',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: `http://127.0.0.1:${values.port}`,
  });
  const app = createApp(config, { buildDir: currentBuild(buildDirs(config.dataDir)) });
  if (semantic) {
    const status = await app.semantic.load(app.services.catalog.current);
    if (status !== 'ready') throw new Error(`${target.label}: the semantic index is ${status}`);
  }
  return app.pipeline;
}

function incoming(target: string): IncomingRequestLike {
  return {
    method: 'GET',
    target,
    headers: { host: `127.0.0.1:${values.port}` },
    remoteAddress: '127.0.0.1',
    signal: new AbortController().signal,
    requiresHost: true,
    body: async () => Buffer.alloc(0),
  };
}

/**
 * Per request, wall time: the thread's CPU time moves in scheduler ticks, too coarse for one request, and this thread
 * does nothing but the request. A request that a collection or another process interrupted is an outlier that the
 * median of the per-request ratios (each target against the first) ignores.
 */
async function inPipelines(paths: string[]): Promise<{ figures: Figures; ratios: Array<Record<string, number>> }> {
  const pipelines: PipelineOf[] = [];
  const semantic = paths.some((path) => path.includes('semantic='));
  for (const target of targets) pipelines.push(await pipelineOf(target, semantic));
  const pass = async (part: string[]) => {
    const times = targets.map(() => new Float64Array(part.length));
    const answers = targets.map(() => new Array<string>(part.length));
    for (let i = 0; i < part.length; i++) {
      for (let k = 0; k < targets.length; k++) {
        const t = (i + k) % targets.length;
        const start = performance.now();
        const { reply } = await pipelines[t]!(incoming(part[i]!));
        times[t]![i] = performance.now() - start;
        const body = reply.body === undefined ? '' : reply.body.toString();
        answers[t]![i] = answerKey(reply.status, body);
      }
    }
    return { times, answers };
  };
  await pass(slice(paths, -1));
  const figures: Figures = Object.fromEntries(targets.map((t) => [t.label, { msPerRequest: [], answers: [] }]));
  const ratios: Array<Record<string, number>> = [];
  for (let r = 0; r < rounds; r++) {
    const { times, answers } = await pass(slice(paths, r));
    targets.forEach((t, i) => {
      figures[t.label]!.msPerRequest.push(round3(median(times[i]!)));
      figures[t.label]!.answers.push(digest(answers[i]!));
    });
    const first = times[0]!;
    ratios.push(Object.fromEntries(targets.slice(1).map((t, i) => [t.label, round3(median(Float64Array.from(first, (x, j) => times[i + 1]![j]! / x)))])));
  }
  return { figures, ratios };
}

// ---- http: the servers of several checkouts on loopback ----------------------------------------------------------

/** utime + stime of the whole process (every thread, ended ones too), in milliseconds. */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Run time of each live thread (schedstat, nanoseconds), summed by thread name, in milliseconds. */
function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out[name] = (out[name] ?? 0) + Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      // The thread ended meanwhile: its time is in processCpuMs.
    }
  }
  return out;
}

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function get(origin: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolveGet, reject) => {
    const req = request(origin + path, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolveGet({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Server {
  origin: string;
  pid: number;
  stop(): Promise<unknown>;
}

function startServer(target: Target, port: number): Server {
  const origin = `http://127.0.0.1:${port}`;
  // `npm start`'s command (package.json), without npm's process in between.
  const child = spawn(join(target.tree, 'node_modules/node/bin/node'), ['--max-semi-space-size=8', 'server/start.ts'], {
    cwd: target.tree,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      CATALOG_DATA_DIR: target.data,
      CATALOG_BUILD_ON_START: 'false',
      PUBLIC_BASE_URL: origin,
      RATE_LIMIT_MAX: '1000000000',
      SEARCH_SIGNALS: 'off',
      LOG_LEVEL: 'warn',
    },
  });
  const exited = once(child, 'exit');
  return { origin, pid: child.pid!, stop: () => (child.kill('SIGTERM'), exited) };
}

async function answering(origin: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const status = await get(origin, '/api/v1/meta').then(
      (answer) => answer.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error(`no answer from ${origin}`);
}

/** Each path to every server in turn (the first server changing from path to path), `concurrency` paths in flight. */
async function replay(servers: Server[], part: string[]): Promise<string[][]> {
  const answers = servers.map(() => new Array<string>(part.length));
  let next = 0;
  const lane = async () => {
    while (next < part.length) {
      const i = next++;
      for (let k = 0; k < servers.length; k++) {
        const s = (i + k) % servers.length;
        const { status, body } = await get(servers[s]!.origin, part[i]!);
        answers[s]![i] = answerKey(status, body);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return answers;
}

async function overHttp(paths: string[]): Promise<{ figures: Figures; ratios: Array<Record<string, number>> }> {
  const servers = targets.map((target, i) => startServer(target, Number(values.port) + i));
  try {
    for (const server of servers) await answering(server.origin);
    await replay(servers, slice(paths, -1));
    const figures: Figures = Object.fromEntries(targets.map((t) => [t.label, { msPerRequest: [], threads: [], answers: [] }]));
    const ratios: Array<Record<string, number>> = [];
    for (let r = 0; r < rounds; r++) {
      const cpu0 = servers.map((s) => processCpuMs(s.pid));
      const threads0 = servers.map((s) => threadCpuMs(s.pid));
      const answers = await replay(servers, slice(paths, r));
      const cpu = servers.map((s, i) => (processCpuMs(s.pid) - cpu0[i]!) / n);
      servers.forEach((s, i) => {
        const threads = Object.entries(threadCpuMs(s.pid)).map(([name, ms]) => [name, round3((ms - (threads0[i]![name] ?? 0)) / n)] as const);
        const figure = figures[targets[i]!.label]!;
        figure.msPerRequest.push(round3(cpu[i]!));
        figure.threads!.push(Object.fromEntries(threads.filter(([, ms]) => ms >= 0.001)));
        figure.answers.push(digest(answers[i]!));
      });
      ratios.push(Object.fromEntries(targets.slice(1).map((t, i) => [t.label, round3(cpu[i + 1]! / cpu[0]!)])));
    }
    return { figures, ratios };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

// ---- engine: the query engine alone ------------------------------------------------------------------------------

interface EngineModules {
  CatalogStore: new (runtimeDir: string) => object;
  QueryEngine: { new (store: object): { search(request: object): { docs: number[]; total: number } }; fromQuery(query: object, q: string | undefined): object };
  parseListingQuery(params: URLSearchParams, versioned: boolean): { q?: string };
}

async function engineAlone(paths: string[]): Promise<{ figures: Figures; ratios: Array<Record<string, number>> }> {
  const target = targets[0]!;
  const load = (path: string) => import(pathToFileURL(join(target.tree, path)).href) as Promise<Record<string, unknown>>;
  // src/domain/ was split by concern after 6c8e581: a tree has one of the two.
  const queryModule = existsSync(join(target.tree, 'src/domain/contract/listing-query.ts'))
    ? 'src/domain/contract/listing-query.ts'
    : 'src/domain/listing-query.ts';
  const [store, engineModule, query] = await Promise.all([load('src/artifacts/runtime-store.ts'), load('src/search/query-engine.ts'), load(queryModule)]);
  const { CatalogStore, QueryEngine, parseListingQuery } = {
    CatalogStore: store.CatalogStore,
    QueryEngine: engineModule.QueryEngine,
    parseListingQuery: query.parseListingQuery,
  } as EngineModules;
  const engine = new QueryEngine(new CatalogStore(join(target.data, 'current', 'runtime')));
  const requests = (part: string[]) =>
    part.map((path) => {
      const parsed = parseListingQuery(new URL(path, 'http://localhost').searchParams, true);
      return QueryEngine.fromQuery(parsed, parsed.q);
    });
  const run = (searches: object[]) => digest(searches.map((search) => ((result) => `${result.total} ${result.docs.join(',')}`)(engine.search(search))));
  // The engine keeps no answers, so every round repeats the same searches: rounds differ by noise alone.
  const measured = requests(slice(paths, 0));
  run(requests(slice(paths, -1)));
  run(measured);
  const figure = { msPerRequest: [] as number[], answers: [] as string[] };
  for (let r = 0; r < rounds; r++) {
    const cpu0 = process.cpuUsage();
    figure.answers.push(run(measured));
    const cpu = process.cpuUsage(cpu0);
    figure.msPerRequest.push(round3((cpu.user + cpu.system) / 1000 / n));
  }
  return { figures: { [target.label]: figure }, ratios: [] };
}

const paths = rowPaths();
const measure = { pipeline: inPipelines, http: overHttp, engine: engineAlone }[mode];
if (!measure) throw new Error(`mode ${mode}: pipeline, http or engine`);
const { figures, ratios } = await measure(paths);
const summary = {
  mode,
  row: values.row,
  n,
  rounds,
  medianMsPerRequest: Object.fromEntries(Object.entries(figures).map(([label, f]) => [label, round3(median(f.msPerRequest))])),
  medianRatio: Object.fromEntries(targets.slice(1).map((t) => [t.label, round3(median(ratios.map((r) => r[t.label]!)))])),
  ratios,
  figures,
};
console.log(JSON.stringify(summary));
if (values.json) writeFileSync(values.json, `${JSON.stringify(summary, null, 2)}\n`);
process.exit(0);
