// Mixed traffic for the proofs under load and faults: N closed-loop connections (the bench's shape: 16) or a
// paced rate, over the surfaces people and agents use (searches, reads by id, pages, /browse, MCP, A2A, /ask,
// batch, discovery files), every answer checked: status, the build that answered (Catalog-Build) and, for
// /api/v1/meta, that the body's lastUpdated belongs to that build.
import { Agent, request } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../../src/net/free-port.ts';
import { ROOT, startCommand } from '../harness.ts';

export interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

const mcp = (id: number, name: string, args: Record<string, unknown>): Req => ({
  method: 'POST',
  path: '/mcp',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
});

/** The mix: mostly API reads and searches, then pages, then agent surfaces (roughly what the logs of a directory show). */
export const MIXED: Req[] = [
  { method: 'GET', path: '/api/v1/listings?q=postgres&limit=20' },
  { method: 'GET', path: '/api/v1/listings?q=server&type=mcp&limit=20' },
  { method: 'GET', path: '/api/v1/listings?q=react&category=frontend-design&limit=20' },
  { method: 'GET', path: '/api/v1/listings?type=mcp&sort=stars&limit=20' },
  { method: 'GET', path: '/api/v1/listings?q=github&sort=stars&limit=20' },
  { method: 'GET', path: '/api/v1/listings?limit=20&offset=40' },
  { method: 'GET', path: '/api/v1/listings/vercel-react-best-practices' },
  { method: 'GET', path: '/api/v1/listings/vercel-react-best-practices/files' },
  { method: 'GET', path: '/api/v1/meta' },
  { method: 'GET', path: '/api/v1/meta' },
  { method: 'GET', path: '/api/v1/catalog/stats' },
  { method: 'GET', path: '/api/upstream/categories' },
  {
    method: 'POST',
    path: '/api/v1/listings/batch',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ids: ['vercel-react-best-practices', 'nope-not-here'] }),
  },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/types/mcp/' },
  { method: 'GET', path: '/listings/vercel-react-best-practices/' },
  { method: 'GET', path: '/browse?q=database', headers: { Accept: 'text/html' } },
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/llms.txt' },
  mcp(1, 'search_catalog', { query: 'postgres', limit: 5 }),
  mcp(2, 'top_catalog', { type: 'mcp', limit: 10 }),
  {
    method: 'POST',
    path: '/a2a/v1',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'postgres mcp server' }] } },
    }),
  },
  { method: 'GET', path: '/ask?q=browser+automation', headers: { Accept: 'application/json' } },
  { method: 'GET', path: '/readyz' },
];

export interface Answer {
  req: Req;
  status: number;
  /** The X-Forwarded-For sent, if any. */
  client?: string | undefined;
  build: string | undefined;
  lastUpdated: string | undefined;
  /** ms since the traffic started, at send and at the end of the answer. */
  sentAt: number;
  doneAt: number;
  error?: string;
}

export interface Traffic {
  answers: Answer[];
  stop(): Promise<void>;
  readonly elapsedMs: number;
}

/**
 * Sends the mix until stopped: `connections` loops, each sending its next request when the previous answer is in,
 * or paced to `ratePerSecond` overall. `clientFor(i)` may set X-Forwarded-For per request (for a TRUST_PROXY shim).
 */
export function startTraffic(
  origins: string[],
  options: {
    connections?: number;
    ratePerSecond?: number;
    mix?: Req[];
    clientFor?: (n: number) => string | undefined;
    keep?: (answer: Answer) => boolean;
    timeoutMs?: number;
  } = {},
): Traffic {
  const connections = options.connections ?? 16;
  const mix = options.mix ?? MIXED;
  const agent = new Agent({ keepAlive: true, maxSockets: connections * 2 });
  const answers: Answer[] = [];
  const started = performance.now();
  let running = true;
  let n = 0;
  const one = (origin: string, req: Req, client: string | undefined): Promise<Answer> =>
    new Promise((resolve) => {
      const sentAt = performance.now() - started;
      const url = new URL(req.path, origin);
      const headers: Record<string, string> = { ...req.headers };
      if (client) headers['X-Forwarded-For'] = client;
      if (req.body) headers['Content-Length'] = String(Buffer.byteLength(req.body));
      const r = request(url, { method: req.method, agent, headers, timeout: options.timeoutMs ?? 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          let lastUpdated: string | undefined;
          if (req.path === '/api/v1/meta' && res.statusCode === 200)
            lastUpdated = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { lastUpdated: string }).lastUpdated;
          resolve({
            req,
            status: res.statusCode ?? 0,
            build: res.headers['catalog-build'] as string | undefined,
            lastUpdated,
            sentAt,
            doneAt: performance.now() - started,
          });
        });
        res.on('error', (error) =>
          resolve({ req, status: 0, build: undefined, lastUpdated: undefined, sentAt, doneAt: performance.now() - started, error: error.message }),
        );
      });
      r.on('timeout', () => r.destroy(new Error('timeout')));
      r.on('error', (error) =>
        resolve({ req, status: 0, build: undefined, lastUpdated: undefined, sentAt, doneAt: performance.now() - started, error: error.message }),
      );
      r.end(req.body);
    });
  const record = (answer: Answer, client: string | undefined) => {
    answer.client = client;
    if (!options.keep || options.keep(answer)) answers.push(answer);
  };
  const loops: Promise<void>[] = [];
  if (options.ratePerSecond) {
    // Paced: a request every 1000/rate ms, whatever the answers take (open loop), at most `connections` in flight.
    const interval = 1000 / options.ratePerSecond;
    let inFlight = 0;
    loops.push(
      (async () => {
        let next = performance.now();
        while (running) {
          next += interval;
          const wait = next - performance.now();
          if (wait > 1) await new Promise((r) => setTimeout(r, wait));
          if (inFlight >= connections * 4) continue;
          const i = n++;
          inFlight++;
          const client = options.clientFor?.(i);
          void one(origins[i % origins.length]!, mix[i % mix.length]!, client).then((answer) => {
            inFlight--;
            record(answer, client);
          });
        }
        while (inFlight > 0) await new Promise((r) => setTimeout(r, 10));
      })(),
    );
  } else {
    for (let c = 0; c < connections; c++) {
      loops.push(
        (async () => {
          while (running) {
            const i = n++;
            const client = options.clientFor?.(i);
            record(await one(origins[i % origins.length]!, mix[i % mix.length]!, client), client);
          }
        })(),
      );
    }
  }
  return {
    answers,
    get elapsedMs() {
      return performance.now() - started;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

export interface Shim {
  child: ChildProcess;
  origin: string;
  port: number;
  rssMB(): number;
  log(): string;
  stop(): Promise<void>;
}

/** Starts `npm start`'s entry (server/start.ts) as its own process, with `npm start`'s environment and Node flags, and waits for /healthz. */
export async function startShim(env: Record<string, string>, port?: number): Promise<Shim> {
  port ??= await freePort();
  // Without them (MALLOC_ARENA_MAX=1, --max-semi-space-size=8) a proof measured a shim that is not the one that
  // ships: V8's default young generation and glibc's arenas per thread hold more memory (server/heap-tuning.ts).
  const start = startCommand('server/start.ts');
  const child = spawn(process.execPath, [...start.flags, 'server/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...start.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-200_000)));
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-200_000)));
  const origin = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`shim exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${origin}/healthz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (attempt > 600) throw new Error(`shim did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    origin,
    port,
    log: () => log,
    rssMB() {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return match ? Math.round(Number(match[1]) / 1024) : 0;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs a command to completion, with its output. */
export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code: code ?? 1, output, ms: performance.now() - started }));
  });
}

/**
 * The largest of `values` (-Infinity when there are none, as Math.max()). A loop, not Math.max(...values): a spread
 * passes every element as an argument on the stack, and a fast machine's run has more answers than the stack holds.
 */
export function maxOf(values: Iterable<number>): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  return max;
}

/** The smallest of `values` (Infinity when there are none, as Math.min()); see maxOf. */
export function minOf(values: Iterable<number>): number {
  let min = Infinity;
  for (const value of values) if (value < min) min = value;
  return min;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Counts of answers by status, and the failures (no answer, or a status not in `expected`). */
export function tally(answers: Answer[], expected: (answer: Answer) => boolean = (a) => a.status >= 200 && a.status < 400) {
  const byStatus: Record<string, number> = {};
  for (const answer of answers)
    byStatus[answer.error ? `error:${answer.error}` : answer.status] = (byStatus[answer.error ? `error:${answer.error}` : answer.status] ?? 0) + 1;
  const failures = answers.filter((answer) => answer.error !== undefined || !expected(answer));
  return {
    total: answers.length,
    byStatus,
    failed: failures.length,
    failures: failures.slice(0, 10).map((f) => ({ path: f.req.path, status: f.status, error: f.error })),
  };
}
