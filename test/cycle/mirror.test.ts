// Guarantees `catalog mirror` and `catalog serve`: a running instance's shards and export are fetched and
// verified against the manifest's SHA-256, an interrupted or damaged mirror resumes (verified files kept, missing
// and bad ones fetched again), a file that never verifies fails the mirror, and the mirror, built once from what
// it fetched, serves every route of SERVICE.md as the origin does, with its own URL in every absolute URL.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { runBuild } from '../../build/build-pipeline.ts';
import { mirror, MirrorError, type MirrorReport } from '../../build/mirror/mirror.ts';
import { resolveServeTarget } from '../../build/mirror/serve-target.ts';
import { createServeApp } from '../../server/serve.ts';
import { currentBuild, buildDirs } from '../../src/artifacts/build-dirs.ts';
import { manifestEntries } from '../../build/mirror/shard-manifest.ts';
import type { ShardManifest } from '../../build/stages/shards-stage.ts';
import type { App } from '../../server/app.ts';
import { loadConfig } from '../../src/config.ts';
import { readGone, RUNTIME_FORMAT, RUNTIME_MANIFEST_FILE } from '../../src/artifacts/runtime-manifest.ts';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { sampleRecords, writeExport } from '../support/fixtures.ts';
import { startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { probeRequests } from '../front/front-routes.ts';
import { jsonOf, runCli } from './cli-runner.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();
/** The mirror's own public URL: where the origin's answers say TEST_BASE_URL, the mirror's say this. */
const MIRROR_URL = 'http://mirror.test';
const asMirror = (text: string) =>
  text.replaceAll(encodeURIComponent(TEST_BASE_URL), encodeURIComponent(MIRROR_URL)).replaceAll(new URL(TEST_BASE_URL).host, new URL(MIRROR_URL).host);
const mirrorBuild = () => currentBuild(buildDirs(join(mirrorDir, 'data')));

const dataDir = tempDir('catalog-origin-');
const mirrorDir = join(tempDir('catalog-mirror-'), 'mirror');
let origin: TestServer;
let manifest: ShardManifest;
let buildDir: string;

beforeAll(async () => {
  const records = sampleRecords(60, ['pdf', 'docx', 'xlsx', 'pptx']);
  const exportPath = writeExport(join(dataDir, 'export'), records);
  ({ buildDir } = await runBuild({ dataDir, exportPath, baseUrl: TEST_BASE_URL, quiet: true }));
  origin = await startServer({}, { buildDir }, { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' });
  manifest = JSON.parse(readFileSync(join(buildDir, 'site/shards/manifest.json'), 'utf8')) as ShardManifest;
});
afterAll(() => origin?.close());

const entries = () => manifestEntries(manifest);
const entryCount = () => entries().length;
const siteFile = (path: string) => join(mirrorDir, 'site', path);

describe('mirror', () => {
  it('an interrupted mirror keeps what it verified and leaves no manifest behind', async () => {
    expect(entryCount()).toBeGreaterThan(20);
    const controller = new AbortController();
    let placed = 0;
    const outcome = await mirror({
      baseUrl: origin.origin,
      dir: mirrorDir,
      publicUrl: MIRROR_URL,
      concurrency: 2,
      signal: controller.signal,
      onFile: () => {
        if (++placed === 8) controller.abort();
      },
    }).catch((error: unknown) => error);
    expect((outcome as Error).name).toBe('AbortError');
    const fetched = entries().filter((e) => existsSync(siteFile(e.path))).length;
    expect(fetched).toBeGreaterThanOrEqual(8);
    expect(fetched).toBeLessThan(entryCount());
    // Without the manifest the directory is not a mirror yet: serve refuses it instead of serving half a snapshot.
    expect(existsSync(siteFile('/shards/manifest.json'))).toBe(false);
    await expect(resolveServeTarget(mirrorDir)).rejects.toThrow(/neither a mirror/);
  });

  it('resuming keeps verified files, repairs a corrupted one and fetches the missing ones', async () => {
    const present = entries().filter((e) => existsSync(siteFile(e.path)));
    const corrupted = present[0]!;
    writeFileSync(siteFile(corrupted.path), '[{"id":"tampered"}]');
    writeFileSync(`${siteFile(present[1]!.path)}.part-99999`, 'left over by a killed run');

    const report = await mirror({ baseUrl: origin.origin, dir: mirrorDir, publicUrl: MIRROR_URL });
    expect(report).toMatchObject({ files: entryCount(), repaired: 1, kept: present.length - 1, fetched: entryCount() - present.length + 1, built: true });
    expect(report.snapshotHash).toBe(manifest.snapshotHash);
    for (const entry of entries()) {
      expect(readFileSync(siteFile(entry.path))).toEqual(readFileSync(join(buildDir, 'site', entry.path)));
    }
    expect(readFileSync(siteFile('/shards/manifest.json'), 'utf8')).toBe(readFileSync(join(buildDir, 'site/shards/manifest.json'), 'utf8'));
    const leftovers = readdirSync(join(mirrorDir, 'site'), { recursive: true }).filter((name) => String(name).includes('.part-'));
    expect(leftovers).toEqual([]);
  });

  it('the export it fetched is the one the origin ingested: the same snapshot, built again from it', () => {
    expect(manifest.export).toMatchObject({ path: '/shards/export/listings.jsonl', count: manifest.count });
    expect(manifest.count).toBeGreaterThan(0);
    const origin = JSON.parse(readFileSync(join(buildDir, 'runtime/manifest.json'), 'utf8')) as { snapshotHash: string };
    const mirrored = JSON.parse(readFileSync(join(mirrorBuild()!, 'runtime/manifest.json'), 'utf8')) as { snapshotHash: string };
    expect(mirrored.snapshotHash).toBe(origin.snapshotHash);
    expect(JSON.parse(readFileSync(join(mirrorBuild()!, 'build.json'), 'utf8')).baseUrl).toBe(MIRROR_URL);
  });

  it('a second mirror of the same snapshot fetches nothing and does not build again (via the CLI)', async () => {
    const build = mirrorBuild()!;
    const stamp = statSync(join(build, 'build.json')).mtimeMs;
    const result = await runCli(['mirror', origin.origin, mirrorDir, '--json', '--public-url', MIRROR_URL]);
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf<MirrorReport>(result)).toMatchObject({ fetched: 0, kept: entryCount(), repaired: 0, built: false });
    expect(mirrorBuild()).toBe(build);
    expect(statSync(join(build, 'build.json')).mtimeMs).toBe(stamp);
  });

  it('a file that does not match its checksum after the retries fails the mirror (exit code 3), keeping the rest', async () => {
    const target = manifest.files[0]!;
    // The origin's build is immutable (the shim prepares each file once per build), so the bytes that differ
    // from what the manifest promises come from a stand-in in front of it that alters that one file.
    const proxy = createServer((req, res) => {
      const url = req.url ?? '/';
      fetch(origin.origin + url, { headers: { 'Accept-Encoding': 'identity' } }).then(
        async (upstream) => {
          let body = Buffer.from(await upstream.arrayBuffer());
          if (url.split('?')[0] === target.path) body = Buffer.from(body.toString('utf8').replace(/"path"/, '"paht"'));
          res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
          res.end(body);
        },
        () => res.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const tampering = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const dir = join(tempDir('catalog-mirror-bad-'), 'm');
    try {
      const error = await mirror({ baseUrl: tampering, dir, publicUrl: MIRROR_URL, retries: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MirrorError);
      expect((error as MirrorError).kind).toBe('checksum');
      expect((error as Error).message).toContain(target.path);
      expect(existsSync(join(dir, 'site', target.path))).toBe(false);
      expect(existsSync(join(dir, 'site/shards/manifest.json'))).toBe(false);
      const kept = entries().filter((e) => existsSync(join(dir, 'site', e.path)));
      for (const entry of kept) expect(readFileSync(join(dir, 'site', entry.path))).toEqual(readFileSync(join(buildDir, 'site', entry.path)));

      const cli = await runCli(['mirror', tampering, dir, '--retries', '0']);
      expect(cli.code).toBe(3);
      expect(cli.stderr).toContain('SHA-256');
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('waits out a rate-limited origin (429 with Retry-After) instead of failing', async () => {
    // The shim does not count /shards/ against the rate limit, but a mirror may sit behind a proxy or CDN that
    // does: this stand-in answers 429 to the first request for every third file, then passes requests through.
    const seen = new Set<string>();
    let n = 0;
    const proxy = createServer((req, res) => {
      const url = req.url ?? '/';
      if (!seen.has(url) && n++ % 3 === 0) {
        seen.add(url);
        res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end('{"code":"rate_limited","message":"slow down","resolution":"wait"}');
        return;
      }
      seen.add(url);
      fetch(origin.origin + url).then(
        async (upstream) => {
          res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        },
        () => res.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const dir = join(tempDir('catalog-mirror-limited-'), 'm');
      const report = await mirror({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, dir, publicUrl: MIRROR_URL, build: false });
      expect(report).toMatchObject({ files: entryCount(), fetched: entryCount() });
      expect(report.rateLimited).toBeGreaterThan(0);
      expect(readFileSync(join(dir, 'site/shards/manifest.json'), 'utf8')).toBe(readFileSync(join(buildDir, 'site/shards/manifest.json'), 'utf8'));
    } finally {
      proxy.close();
    }
  });

  it('an origin that is not a catalog is a fetch failure, not a crash', async () => {
    const cli = await runCli(['mirror', `${origin.origin}/nothing-here`, join(tempDir(), 'm')]);
    expect(cli.code).toBe(3);
    expect(cli.stderr).toMatch(/404/);
  });
});

describe('serve <mirror>', () => {
  let served: App | undefined;
  let servedOrigin: string;

  beforeAll(async () => {
    const target = await resolveServeTarget(mirrorDir);
    expect(target).toMatchObject({ kind: 'mirror', built: false, buildDir: mirrorBuild() });
    const config = loadConfig({ PUBLIC_BASE_URL: MIRROR_URL, RATE_LIMIT_MAX: '1000000' }, { port: 0, host: '127.0.0.1' });
    served = createServeApp(config, target, pino({ level: 'silent' }));
    servedOrigin = `http://127.0.0.1:${(await served.listen()).port}`;
    // Embeddings load once listening; the origin's have long been loaded.
    expect(await served.semantic.settled).toBe('ready');
  });
  afterAll(() => served?.close());

  const first = (type: string) => sampleRecords(60).find((r) => r.type === type)!;
  const paths = () => [
    '/api/v1/listings',
    '/api/v1/listings?limit=100',
    '/api/v1/listings?type=skill&limit=50',
    '/api/v1/listings?type=mcp&sort=stars&limit=25',
    '/api/v1/listings?sort=trending&limit=40',
    '/api/v1/listings?sort=searchTrend&limit=10',
    `/api/v1/listings?type=skill&category=${first('skill').category}`,
    `/api/v1/listings?owner=${first('plugin').repo.split('/')[0]}`,
    '/api/v1/listings?q=pdf',
    '/api/v1/listings?q=server&type=mcp&limit=20',
    '/api/v1/listings?q=git&sort=installs',
    '/api/v1/listings?semantic=read%20a%20spreadsheet&limit=10',
    '/api/v1/listings?limit=10&offset=30',
    '/api/upstream/listings?type=workflow',
    '/api/v1/listings/pdf',
    `/api/v1/listings/${encodeURIComponent(first('mcp').id)}`,
    '/api/v1/listings/pdf/files',
    '/api/v1/listings/xlsx/files',
    `/api/v1/listings/${encodeURIComponent(first('marketplace').id)}/files`,
    '/api/v1/listings/no-such-listing',
    '/api/v1/catalog/stats',
    '/api/v1/categories',
    '/api/v1/meta',
    '/shards/manifest.json',
    manifest.collections.all!.pages[0]!.path,
  ];

  /**
   * What differs between two builds of one snapshot, or two processes: the build id and the time the shared-state
   * check last changed (readiness probe), and the shard pages'
   * checksums in the shards manifest (each page carries its listings' URLs, which are the mirror's own).
   */
  const sameAcrossBuilds = (path: string, body: string): string => {
    if (path === '/readyz') return body.replace(/"build":"[^"]+"/, '"build":"<build>"').replace(/"since":"[^"]+"/, '"since":"<time>"');
    if (path === '/shards/manifest.json') return body.replace(/"(sha256|bytes)": ?("[0-9a-f]{64}"|\d+)/g, '"$1":"<per-build>"');
    return body;
  };

  it('answers the API exactly as the origin does, with its own URL', async () => {
    for (const path of paths()) {
      const [a, b] = await Promise.all([fetch(origin.origin + path), fetch(servedOrigin + path)]);
      expect(b.status, path).toBe(a.status);
      expect(b.headers.get('search-mode'), path).toBe(a.headers.get('search-mode'));
      expect(sameAcrossBuilds(path, await b.text()), path).toBe(sameAcrossBuilds(path, asMirror(await a.text())));
    }
    const batch = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ids: ['pdf', 'docx', 'missing'] }) };
    const [a, b] = await Promise.all([fetch(`${origin.origin}/api/v1/listings/batch`, batch), fetch(`${servedOrigin}/api/v1/listings/batch`, batch)]);
    expect(await b.text()).toBe(asMirror(await a.text()));
  });

  it('serves every route of SERVICE.md, page and error as the origin does: status, media type and body', async () => {
    const page = (await (await fetch(`${origin.origin}/api/v1/listings?limit=3&types=mcp`)).json()) as {
      items: Array<{ id: string; slug: string; type: string }>;
    };
    const requests = probeRequests({ ids: page.items.map((item) => item.id), slug: page.items[0]!.slug, type: page.items[0]!.type });
    expect(requests.length).toBeGreaterThan(70);
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const differences: string[] = [];
    for (const request of requests) {
      const answers = await Promise.all(
        [origin.origin, servedOrigin].map(async (base) => {
          const controller = new AbortController();
          const res = await fetch(base + request.path, { ...request.init, signal: controller.signal, redirect: 'manual' });
          let body = '';
          if (request.stream) controller.abort();
          else body = sameAcrossBuilds(request.path, (await res.text()).replace(uuid, '<uuid>'));
          return {
            status: res.status,
            type: res.headers.get('content-type'),
            mode: res.headers.get('search-mode'),
            location: res.headers.get('location'),
            body,
          };
        }),
      );
      const [want, got] = [{ ...answers[0]!, body: asMirror(answers[0]!.body) }, answers[1]!];
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        differences.push(
          `${request.name}: ${JSON.stringify({ ...want, body: want.body.slice(0, 160) })} / ${JSON.stringify({ ...got, body: got.body.slice(0, 160) })}`,
        );
      }
    }
    expect(differences).toEqual([]);
  });

  it('serves read-only: no counters are written into the mirror', async () => {
    await fetch(`${servedOrigin}/api/v1/listings?q=pdf`);
    await fetch(`${servedOrigin}/api/v1/listings/pdf`);
    await served!.close();
    served = undefined;
    for (const dir of [mirrorDir, join(mirrorDir, 'data')]) {
      expect(existsSync(join(dir, 'signals.db'))).toBe(false);
      expect(existsSync(join(dir, 'shim.pid'))).toBe(false);
    }
  });

  it('a mirror fetched without a build is built on its first serve, and only then; another public URL builds again', async () => {
    const dir = join(tempDir('catalog-mirror-late-'), 'm');
    expect((await mirror({ baseUrl: origin.origin, dir, publicUrl: MIRROR_URL, build: false })).built).toBe(false);
    expect(existsSync(join(dir, 'data'))).toBe(false);
    const first = await resolveServeTarget(dir, { defaultPublicUrl: MIRROR_URL });
    expect(first.built).toBe(true);
    expect(await resolveServeTarget(dir)).toMatchObject({ built: false, buildDir: first.buildDir });
    const moved = await resolveServeTarget(dir, { publicUrl: 'http://elsewhere.test' });
    expect(moved.built).toBe(true);
    expect(readFileSync(join(moved.buildDir, 'site/llms.txt'), 'utf8')).toContain('http://elsewhere.test/');
    expect(readFileSync(join(moved.buildDir, 'site/llms.txt'), 'utf8')).not.toContain(TEST_BASE_URL);
    // A build an older checkout made (another runtime format) is built again rather than served and failed on.
    const manifestPath = join(moved.buildDir, 'runtime', RUNTIME_MANIFEST_FILE);
    writeFileSync(manifestPath, JSON.stringify({ ...(JSON.parse(readFileSync(manifestPath, 'utf8')) as object), format: RUNTIME_FORMAT - 1 }));
    const again = await resolveServeTarget(dir);
    expect(again.built).toBe(true);
    expect(again.buildDir).not.toBe(moved.buildDir);
    // Three builds of the test catalog: the default limit is too close for a busy machine.
  }, 180_000);
});

describe('a mirror fetched with PORT set for the origin', () => {
  it("is not built for the origin's address; serve builds it for its own, and again for another local port", async () => {
    const dir = join(tempDir('catalog-mirror-port-'), 'm');
    const port = new URL(origin.origin).port;
    // What a person gets who mirrors from the shell that started the origin: PORT names the origin's port.
    const result = await runCli(['mirror', origin.origin, dir], { PORT: port, PUBLIC_BASE_URL: undefined });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`not built: http://localhost:${port} is the address of the mirror's origin`);
    expect(result.stdout).toMatch(/--port 8081.*--public-url/);
    expect(existsSync(join(dir, 'data'))).toBe(false);
    // Served on the origin's address anyway: refused, saying what to do, rather than built to link to the origin.
    await expect(resolveServeTarget(dir, { defaultPublicUrl: origin.origin })).rejects.toThrow(/address of the mirror's origin/);

    const own = 'http://localhost:18081';
    const served = await resolveServeTarget(dir, { defaultPublicUrl: own });
    expect(served.built).toBe(true);
    const absoluteUrls = (buildDir: string) =>
      ['llms.txt', 'sitemap.xml', 'index.html']
        .map((file) => join(buildDir, 'site', file))
        .filter((file) => existsSync(file))
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
    expect(absoluteUrls(served.buildDir)).toContain(`${own}/`);
    expect(absoluteUrls(served.buildDir)).not.toContain(`:${port}`);
    // A build for one local port is never served on another: its links would reach nothing, or the origin.
    const elsewhere = await resolveServeTarget(dir, { defaultPublicUrl: 'http://127.0.0.1:18082' });
    expect(elsewhere.built).toBe(true);
    expect(absoluteUrls(elsewhere.buildDir)).toContain('http://127.0.0.1:18082/');
    expect(absoluteUrls(elsewhere.buildDir)).not.toContain(own);
    // A public address of its own stays what it was built for, whatever local port serves it.
    expect((await resolveServeTarget(dir, { publicUrl: MIRROR_URL })).built).toBe(true);
    expect(await resolveServeTarget(dir, { defaultPublicUrl: own })).toMatchObject({ built: false });
  }, 300_000);
});

describe('mirror of a new snapshot', () => {
  it('patches its export from the origin change log instead of fetching it whole, and builds the new snapshot', async () => {
    // The origin ingests its next export: two listings removed, one changed, one added.
    const records = sampleRecords(60, ['pdf', 'docx', 'xlsx', 'pptx']);
    const changedId = records[1]!.id;
    const base = records[4]!;
    const next = records
      .filter((_, i) => i !== 7 && i !== 9)
      .map((r) => (r.id === changedId ? { ...r, installs: r.installs + 1000, installsHistory: [...r.installsHistory.slice(0, -1), r.installs + 1000] } : r));
    const { files: _stored, ...unfiled } = base;
    next.push({ ...unfiled, slug: `${base.slug}-next`, id: `${base.type}:${base.repo}#${base.slug}-next`, name: `${base.name} next` });
    const rebuilt = await runBuild({ dataDir, exportPath: writeExport(join(dataDir, 'export-next'), next), baseUrl: TEST_BASE_URL, quiet: true });
    origin.app.reload(rebuilt.buildDir);
    const manifestNext = JSON.parse(readFileSync(join(rebuilt.buildDir, 'site/shards/manifest.json'), 'utf8')) as ShardManifest;
    expect(manifestNext.changes.from).toBe(manifest.snapshotHash);
    const log = JSON.parse(readFileSync(join(rebuilt.buildDir, 'site/shards/changes.json'), 'utf8')) as {
      added: unknown[];
      changed: unknown[];
      removed: unknown[];
    };
    expect([log.added.length, log.changed.length, log.removed.length]).toEqual([1, 1, 2]);

    const outcomes = new Map<string, string>();
    const report = await mirror({ baseUrl: origin.origin, dir: mirrorDir, publicUrl: MIRROR_URL, onFile: (path, outcome) => outcomes.set(path, outcome) });
    expect(report).toMatchObject({ patchedRecords: 2, built: true, snapshotHash: manifestNext.snapshotHash });
    expect(outcomes.get('/shards/export/listings.jsonl')).toBe('kept');
    expect(readFileSync(join(mirrorDir, 'site/shards/export/listings.jsonl'))).toEqual(
      readFileSync(join(rebuilt.buildDir, 'site/shards/export/listings.jsonl')),
    );
    expect(report.bytesFetched).toBeLessThan(manifestEntries(manifestNext).reduce((sum, entry) => sum + entry.bytes, 0));
    const mirrored = JSON.parse(readFileSync(join(mirrorBuild()!, 'runtime/manifest.json'), 'utf8')) as { snapshotHash: string; count: number };
    expect(mirrored).toMatchObject({ snapshotHash: manifestNext.snapshotHash, count: manifestNext.count });
    // The two removed listings are remembered by the mirror as by the origin (from /shards/gone.json): 410, same day.
    const originGone = readGone(join(rebuilt.buildDir, 'runtime'));
    expect([...originGone.values()].map((g) => g.id).sort()).toEqual([records[7]!.id, records[9]!.id].sort());
    const mirrorStore = new CatalogStore(join(mirrorBuild()!, 'runtime'));
    try {
      for (const removed of [records[7]!, records[9]!]) {
        expect(mirrorStore.findDoc(removed.id)).toBeUndefined();
        expect(mirrorStore.removed(removed.id)).toEqual(originGone.get(removed.slug.toLowerCase()));
        expect(mirrorStore.removed(removed.slug)?.lastListed).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    } finally {
      mirrorStore.close();
    }
  });
});
