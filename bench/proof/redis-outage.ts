// Proof: Redis killed (SIGKILL) and restarted under load, with two shims sharing it.
//   - reads never fail: paced mixed reads from ordinary clients across both shims are all answered 2xx/3xx;
//   - limits re-converge: a fresh client sending RATE_LIMIT_MAX + 20 requests across both shims gets exactly
//     RATE_LIMIT_MAX allowed while Redis is up (one shared budget), more while it is down (each shim counts on
//     its own: the documented fail-open), and exactly RATE_LIMIT_MAX again after the restart;
//   - /readyz of both shims says degraded (redis down) during the outage and ready again after; the metrics show
//     catalog_redis_up 0 then 1, one down transition, and decisions by the memory store during the outage.
// Traffic goes straight to the two shims (alternating), or through a front:
//   --front builtin         a minimal nginx round-robin front written by this script
//   --front generated       the front the build generated for the data directory's current build (src/nginx-front/)
//   --front <nginx.conf>    a front config template; {{SHIM_1}}, {{SHIM_2}} (host:port), {{LISTEN}} (port) and
//                           {{PREFIX}} (a temp dir for pid, logs and temp files) are replaced before nginx starts
//   flock /tmp/catalog-bench.lock npx node bench/proof/redis-outage.ts <data-dir> [--front builtin|generated|<conf>]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildDirs, currentBuild } from '../../src/artifacts/build-dirs.ts';
import { writeFrontConfig } from '../../build/stages/front-stage.ts';
import { DEBIAN_BROTLI_STATIC_MODULE, renderNginxConf } from '../../src/nginx-front/nginx-front.ts';
import { freePort } from '../../src/net/free-port.ts';
import { startShim, startTraffic, tally, type Req } from './traffic.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: redis-outage.ts <data dir with a build> [--front builtin|generated|<nginx.conf>]');
const frontArg = process.argv.indexOf('--front') > 0 ? process.argv[process.argv.indexOf('--front') + 1] : undefined;
const MAX = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return child;
    } catch {
      await sleep(50);
    } finally {
      probe.disconnect();
    }
  }
  throw new Error('redis-server did not start');
}

const redisPort = await freePort();
let redis = await startRedis(redisPort);
const prefix = mkdtempSync(join(tmpdir(), 'catalog-proof-redis-'));
// Behind a front, the front appends the address it saw: the client is then 2 hops from the right.
const env = {
  CATALOG_DATA_DIR: dataDir,
  CATALOG_BUILD_ON_START: 'false',
  REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  RATE_LIMIT_MAX: String(MAX),
  TRUST_PROXY: frontArg ? '2' : 'true',
  METRICS_PUBLIC: 'true',
  SEARCH_SIGNALS: 'off',
};
const shims = [await startShim(env), await startShim(env)];

let front: ChildProcess | undefined;
let origins = shims.map((s) => s.origin);
if (frontArg) {
  const listen = await freePort();
  const template =
    frontArg === 'builtin'
      ? `worker_processes 1; pid {{PREFIX}}/nginx.pid; error_log {{PREFIX}}/error.log warn; daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path {{PREFIX}}/body; proxy_temp_path {{PREFIX}}/proxy; fastcgi_temp_path {{PREFIX}}/fcgi; uwsgi_temp_path {{PREFIX}}/uwsgi; scgi_temp_path {{PREFIX}}/scgi;
  upstream shims { server {{SHIM_1}}; server {{SHIM_2}}; keepalive 32; }
  server {
    listen 127.0.0.1:{{LISTEN}};
    location / { proxy_pass http://shims; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; }
  }
}
`
      : frontArg === 'generated'
        ? generatedFrontTemplate()
        : readFileSync(frontArg, 'utf8');
  const conf = template
    .replaceAll('{{SHIM_1}}', `127.0.0.1:${shims[0]!.port}`)
    .replaceAll('{{SHIM_2}}', `127.0.0.1:${shims[1]!.port}`)
    .replaceAll('{{LISTEN}}', String(listen))
    .replaceAll('{{PREFIX}}', prefix);
  // The generated front keeps its logs and temp files in subdirectories of its prefix.
  for (const sub of ['logs', 'tmp']) mkdirSync(join(prefix, sub), { recursive: true });
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  front = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), ...(conf.includes('daemon off') ? [] : ['-g', 'daemon off;'])], { stdio: 'inherit' });
  origins = [`http://127.0.0.1:${listen}`];
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origins[0]}/healthz`)).status === 200) break;
    } catch {
      /* starting */
    }
    if (i > 200) throw new Error('the front did not start');
    await sleep(50);
  }
}

const READS: Req[] = [
  { method: 'GET', path: '/api/v1/listings?q=postgres&limit=20' },
  { method: 'GET', path: '/api/v1/listings?type=mcp&sort=stars&limit=20' },
  { method: 'GET', path: '/api/v1/listings/vercel-react-best-practices' },
  { method: 'GET', path: '/api/v1/meta' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/browse?q=database', headers: { Accept: 'text/html' } },
  {
    method: 'POST',
    path: '/mcp',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { query: 'slack', limit: 5 } } }),
  },
];
// Ordinary clients: 2,000 addresses at 150 requests a second overall, far under 60 a minute each.
const traffic = startTraffic(origins, { ratePerSecond: 150, mix: READS, clientFor: (i) => `10.9.${(i >> 8) & 7}.${i % 250}` });

/** MAX + 20 requests from one new client, alternating shims (or through the front): how many were allowed. */
async function burst(client: string): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < MAX + 20; i++) {
    const origin = origins[i % origins.length]!;
    const res = await fetch(`${origin}/api/v1/meta`, { headers: { 'X-Forwarded-For': client } });
    await res.arrayBuffer();
    if (res.status === 200) allowed++;
  }
  return allowed;
}
const readiness = async () =>
  Promise.all(shims.map(async (s) => (await (await fetch(`${s.origin}/readyz`)).json()) as { status: string; checks: { redis: { state: string } } }));
const metric = async (name: string, labels = '') =>
  Promise.all(
    shims.map(async (s) => {
      const text = await (await fetch(`${s.origin}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(name + (labels ? `{${labels}}` : ' ')));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
    }),
  );
async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error('condition not reached');
    await sleep(50);
  }
  return Math.round(performance.now() - started);
}

const report: Record<string, unknown> = { mode: frontArg ? `behind nginx (${frontArg})` : 'direct to two shims (alternating)', rateLimitMax: MAX };
try {
  await until(async () => (await readiness()).every((r) => r.checks.redis.state === 'up'), 10_000);
  await sleep(2000);
  report.before = {
    allowedOfBurst: await burst('198.51.100.1'),
    readiness: (await readiness()).map((r) => r.status),
    redisUp: await metric('catalog_redis_up'),
  };

  const killedAt = traffic.elapsedMs;
  redis.kill('SIGKILL');
  const detectMs = await until(async () => (await readiness()).every((r) => r.checks.redis.state === 'down'), 10_000);
  await sleep(3000);
  report.during = {
    detectedDownAfterMs: detectMs,
    allowedOfBurst: await burst('198.51.100.2'),
    readiness: (await readiness()).map((r) => r.status),
    redisUp: await metric('catalog_redis_up'),
    memoryDecisions: await metric('catalog_rate_limit_decisions_total', 'decision="allowed",store="memory"'),
  };
  await sleep(5000);
  const restartAt = traffic.elapsedMs;
  redis = await startRedis(redisPort);
  const recoverMs = await until(async () => (await readiness()).every((r) => r.checks.redis.state === 'up'), 30_000);
  await sleep(1000);
  report.after = {
    outageSeconds: Math.round((restartAt - killedAt) / 100) / 10,
    reconnectedAfterMs: recoverMs,
    allowedOfBurst: await burst('198.51.100.3'),
    readiness: (await readiness()).map((r) => r.status),
    redisUp: await metric('catalog_redis_up'),
    downTransitions: await metric('catalog_redis_down_transitions_total'),
  };
  await sleep(3000);
} finally {
  await traffic.stop();
  front?.kill('SIGTERM');
  for (const shim of shims) await shim.stop();
  redis.kill('SIGTERM');
}
const reads = tally(traffic.answers);
report.reads = { total: reads.total, byStatus: reads.byStatus, failed: reads.failed, failureSamples: reads.failures };
const b = report.before as { allowedOfBurst: number };
const d = report.during as { allowedOfBurst: number; readiness: string[]; redisUp: number[] };
const a = report.after as { allowedOfBurst: number; readiness: string[]; redisUp: number[]; downTransitions: number[] };
const ok =
  reads.failed === 0 &&
  b.allowedOfBurst === MAX &&
  d.allowedOfBurst > MAX &&
  d.readiness.every((s) => s === 'degraded') &&
  d.redisUp.every((v) => v === 0) &&
  a.allowedOfBurst === MAX &&
  a.redisUp.every((v) => v === 1) &&
  a.downTransitions.every((v) => v === 1);
console.log(JSON.stringify(report, null, 2));
console.log(ok ? 'REDIS OUTAGE PROOF PASSED' : 'REDIS OUTAGE PROOF FAILED');
process.exit(ok ? 0 : 1);

/** The generated front of the current build, with the placeholders this script fills in. */
function generatedFrontTemplate(): string {
  const build = currentBuild(buildDirs(dataDir!));
  if (!build) throw new Error(`no current build in ${dataDir}`);
  const dir = writeFrontConfig(build);
  return renderNginxConf({
    prefix: '{{PREFIX}}',
    listen: '127.0.0.1:{{LISTEN}}',
    upstreams: ['{{SHIM_1}}', '{{SHIM_2}}'],
    httpConf: join(dir, 'http.conf'),
    serverConf: join(dir, 'server.conf'),
    brotliModule: existsSync(DEBIAN_BROTLI_STATIC_MODULE) ? DEBIAN_BROTLI_STATIC_MODULE : undefined,
    workerProcesses: 1,
  });
}
