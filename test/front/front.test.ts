// The generated nginx front (src/nginx-front/nginx-front.ts, rendered by the build's front stage) in front of a real
// shim, against the same shim alone: every operation, page and error answers the same status, media type, body
// and headers; files come from nginx itself (with their precompressed variants), everything else from the shim,
// which sees the client through X-Forwarded-For and keeps applying its rate limit.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { nginxAvailable, startNginxFront, type NginxFront } from '../../server/front/nginx-process.ts';
import { json, startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { tempDir } from '../support/fixtures.ts';
import { probeRequests, type ProbeRequest } from './front-routes.ts';
import { freePort } from '../../src/net/free-port.ts';

/**
 * Headers that name the server or the connection rather than describe the answer. The RateLimit headers too:
 * files the front serves are not counted (nor, through the shim, are /_astro/ and /shards/); that the API keeps
 * them through the front is checked below.
 */
const PER_SERVER = new Set([
  'date',
  'connection',
  'keep-alive',
  'server',
  'accept-ranges',
  'transfer-encoding',
  'etag',
  'last-modified',
  'ratelimit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-limit',
  'ratelimit-policy',
]);
/** Ids minted per answer (A2A message ids). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function answer(origin: string, request: ProbeRequest, extra: Record<string, string> = {}): Promise<Answer> {
  const controller = new AbortController();
  const res = await fetch(origin + request.path, {
    ...request.init,
    headers: { ...request.init.headers, ...extra },
    signal: controller.signal,
    redirect: 'manual',
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!PER_SERVER.has(name)) headers[name] = value;
  });
  // Minted per answer: only its presence is compared.
  if (headers['x-request-id']) headers['x-request-id'] = '<request-id>';
  let body = '';
  if (request.stream) controller.abort();
  else body = (await res.text()).replace(UUID, '<uuid>');
  return { status: res.status, headers, body };
}

async function startFront(shim: TestServer, prefix: string): Promise<{ front: NginxFront; origin: string }> {
  const buildDir = await sharedBuildDir();
  const port = await freePort();
  const front = await startNginxFront({
    prefix,
    listen: `127.0.0.1:${port}`,
    upstreams: [new URL(shim.origin).host],
    httpConf: join(buildDir, 'front', 'http.conf'),
    serverConf: join(buildDir, 'front', 'server.conf'),
  });
  return { front, origin: `http://127.0.0.1:${port}` };
}

beforeAll(() => {
  if (!nginxAvailable()) throw new Error('nginx is not installed (apt-get install nginx libnginx-mod-http-brotli-static; .ci/run does)');
});

describe('the generated front against the shim alone', () => {
  let shim: TestServer;
  let front: NginxFront;
  let frontOrigin: string;
  let prefix: string;
  let sample: { ids: string[]; slug: string; type: string };

  beforeAll(async () => {
    shim = await startServer({ trustProxy: 1 });
    prefix = tempDir('catalog-front-');
    ({ front, origin: frontOrigin } = await startFront(shim, prefix));
    const page = await json<{ items: Array<{ id: string; slug: string; type: string }> }>(await shim.fetch('/api/v1/listings?limit=3&types=mcp'));
    sample = { ids: page.items.map((item) => item.id), slug: page.items[0]!.slug, type: page.items[0]!.type };
  });
  afterAll(async () => {
    await front?.stop();
    await shim?.close();
    if (prefix) rmSync(prefix, { recursive: true, force: true });
  });

  it('answers every operation, page and error as the shim does: status, headers and body', async () => {
    const requests = probeRequests(sample);
    expect(requests.length).toBeGreaterThan(70);
    const differences: string[] = [];
    for (const request of requests) {
      const direct = await answer(shim.origin, request);
      const fronted = await answer(frontOrigin, request);
      if (JSON.stringify(fronted) !== JSON.stringify(direct)) {
        const headers = [...new Set([...Object.keys(direct.headers), ...Object.keys(fronted.headers)])].filter(
          (name) => direct.headers[name] !== fronted.headers[name],
        );
        differences.push(
          `${request.name}: status ${direct.status}/${fronted.status}, headers ${headers.map((name) => `${name}: ${direct.headers[name]} / ${fronted.headers[name]}`).join('; ')}, body ${direct.body === fronted.body ? 'same' : `${direct.body.slice(0, 120)} / ${fronted.body.slice(0, 120)}`}`,
        );
      }
    }
    expect(differences).toEqual([]);
  });

  it('serves the precompressed variants the shim serves, with the same bytes', async () => {
    const files = [
      '/llms.txt',
      '/openapi.json',
      '/.well-known/api-catalog',
      '/feeds/listings.json',
      '/',
      `/listings/${sample.slug}/`,
      '/sitemap.xml',
      '/pricing.md',
    ];
    for (const path of files) {
      for (const encoding of ['br', 'gzip', 'identity', 'gzip, br']) {
        const request: ProbeRequest = { name: path, path, init: { headers: { 'accept-encoding': encoding } } };
        const [direct, fronted] = [await answer(shim.origin, request), await answer(frontOrigin, request)];
        expect({ path, encoding, ...fronted }).toEqual({ path, encoding, ...direct });
      }
    }
    // Something must actually be compressed, or the loop above proves little.
    const llms = await fetch(`${frontOrigin}/llms.txt`, { headers: { 'accept-encoding': 'br' } });
    expect(llms.headers.get('content-encoding')).toBe('br');
    const page = await fetch(`${frontOrigin}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.headers.get('content-encoding')).toBe('gzip');
  });

  it('serves files itself: validators, 304 without a body, and nothing reaches the shim', async () => {
    const first = await fetch(`${frontOrigin}/llms.txt`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(first.headers.get('last-modified')).toBeTruthy();
    // nginx's own ETag format and no RateLimit headers: the answer did not come from the shim.
    expect(first.headers.get('ratelimit')).toBeNull();
    const again = await fetch(`${frontOrigin}/llms.txt`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const dynamic = await fetch(`${frontOrigin}/api/v1/meta`);
    expect(dynamic.headers.get('ratelimit')).toMatch(/limit=/);
    expect(dynamic.headers.get('ratelimit-policy')).toBe('1000000;w=60');
  });

  it('serves the pages written as one file (listings/<slug>.html, owners/<owner>.html) at their URLs itself', async () => {
    const owners = readdirSync(join(await sharedBuildDir(), 'site', 'owners')).filter((name) => name.endsWith('.html'));
    const owner = owners[0]!.slice(0, -'.html'.length);
    for (const path of [`/listings/${sample.slug}/`, `/listings/${sample.slug}`, `/owners/${owner}/`, `/owners/${owner}`, `/types/${sample.type}/`]) {
      const res = await fetch(`${frontOrigin}${path}`, { headers: { accept: 'text/html' } });
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' });
      // nginx's own ETag and no RateLimit headers: the file came from nginx, not through the shim.
      expect(res.headers.get('etag'), path).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      expect(res.headers.get('ratelimit'), path).toBeNull();
      // Its canonical URL is the page's URL with the slash, not its file's name.
      expect(await res.text(), path).toContain(`<link rel="canonical" href="${TEST_BASE_URL}${path.endsWith('/') ? path : `${path}/`}">`);
    }
  });

  it("keeps a caller's sane X-Request-Id on the files it serves, as the shim does, and makes a distinct one otherwise", async () => {
    for (const origin of [shim.origin, frontOrigin]) {
      const kept = await fetch(`${origin}/llms.txt`, { headers: { 'x-request-id': 'trace-123.abc' } });
      expect(kept.headers.get('x-request-id'), origin).toBe('trace-123.abc');
      const made: string[] = [];
      for (const sent of ['bad id with spaces', 'bad id with spaces', undefined]) {
        const res = await fetch(`${origin}/llms.txt`, sent ? { headers: { 'x-request-id': sent } } : {});
        made.push(res.headers.get('x-request-id') ?? '');
      }
      for (const id of made) expect(id, origin).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(new Set(made).size, origin).toBe(made.length);
    }
  });

  it('answers 503 in the documented error shape when no shim answers', async () => {
    const port = await freePort();
    const deadPrefix = tempDir('catalog-front-dead-');
    const buildDir = await sharedBuildDir();
    const dead = await startNginxFront({
      prefix: deadPrefix,
      listen: `127.0.0.1:${port}`,
      upstreams: ['127.0.0.1:1'],
      httpConf: join(buildDir, 'front', 'http.conf'),
      serverConf: join(buildDir, 'front', 'server.conf'),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/meta`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ code: 'service_unavailable' });
      // Its headers are the shim's: the build the front serves, and on an entry point every discovery link.
      expect(res.headers.get('catalog-build')).toBe(basename(buildDir));
      const entry = await fetch(`http://127.0.0.1:${port}/api/v1`);
      expect(entry.status).toBe(503);
      expect(entry.headers.get('link')).toContain('rel="service-desc"');
      // Files still come from nginx.
      expect((await fetch(`http://127.0.0.1:${port}/llms.txt`)).status).toBe(200);
    } finally {
      await dead.stop();
      rmSync(deadPrefix, { recursive: true, force: true });
    }
  });
});

describe('rate limit and client address through the front', () => {
  let shim: TestServer;
  let front: NginxFront;
  let origin: string;
  let prefix: string;

  beforeAll(async () => {
    shim = await startServer({ trustProxy: 1, rateLimit: { max: 4, windowSeconds: 60 } });
    prefix = tempDir('catalog-front-rl-');
    ({ front, origin } = await startFront(shim, prefix));
  });
  afterAll(async () => {
    await front?.stop();
    await shim?.close();
    if (prefix) rmSync(prefix, { recursive: true, force: true });
  });

  it('counts API requests against the client nginx saw, whatever X-Forwarded-For the client sends', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${origin}/api/v1/meta`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.headers.get('ratelimit-policy')).toBe('4;w=60');
      }
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    // Files are nginx's: not counted, still served.
    expect((await fetch(`${origin}/llms.txt`)).status).toBe(200);
  });
});

describe('npm run start:front', () => {
  it('starts nginx and a shim over the current build, switches on SIGHUP and stops on SIGTERM', async () => {
    const dataDir = tempDir('catalog-front-data-');
    mkdirSync(join(dataDir, 'builds'));
    symlinkSync(await sharedBuildDir(), join(dataDir, 'builds', 'shared'));
    symlinkSync(join('builds', 'shared'), join(dataDir, 'current'));
    const port = await freePort();
    const child = spawn(process.execPath, [resolve('server/front/start-front.ts')], {
      env: {
        ...process.env,
        CATALOG_DATA_DIR: dataDir,
        PORT: String(port),
        CATALOG_BUILD_ON_START: 'false',
        LOG_LEVEL: 'warn',
        SEARCH_SIGNALS: 'off',
        FRONT_SHIMS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      for (let i = 0; i < 300 && !output.includes('catalog front is serving'); i++) {
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toContain('catalog front is serving');
      const pidFile = join(dataDir, 'shim.pid');
      expect(Number(readFileSync(pidFile, 'utf8'))).toBe(child.pid);
      const meta = await fetch(`http://127.0.0.1:${port}/api/v1/meta`);
      expect(meta.status).toBe(200);
      const llms = await fetch(`http://127.0.0.1:${port}/llms.txt`);
      expect(llms.status).toBe(200);
      expect(llms.headers.get('ratelimit')).toBeNull();
      child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 500));
      expect((await fetch(`http://127.0.0.1:${port}/llms.txt`)).status).toBe(200);
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(pidFile)).toBe(false);
      const masterPid = Number(output.match(/"nginxPid":(\d+)/)?.[1]);
      expect(() => process.kill(masterPid, 0)).toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
