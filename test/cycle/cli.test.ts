// Guarantees the command-line tool as scripts use it: documented exit codes (usage 64, invalid records 2,
// fetch failures 3, shim not switched 4, configuration 78), exports read in every format (JSON Lines, JSON
// array, YAML list, gzip, by name or by content, from a file or a URL), `export` round-tripping with `ingest`,
// and `rebuild` switching a running shim by its pid file (SIGHUP) or the staff reload route.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { codeFingerprint } from '../../build/build-pipeline.ts';
import { openCatalogDb } from '../../build/sqlite-store.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords, snapshotRecords, writeExport } from '../support/fixtures.ts';
import { TEST_BASE_URL } from '../support/server.ts';
import { ISSUER, mint } from '../auth/tokens.ts';
import { jsonOf, runCli } from './cli-runner.ts';
import { nextDay } from './daily-exports.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();

interface IngestJson {
  listings: number;
  snapshotHash: string;
  snapshotUnchanged: boolean;
  added: number;
  rejected: number;
  rejects: Array<{ line: number; reason: string }>;
}

const records = sampleRecords(8, ['pdf', 'docx']);
const exportsDir = tempDir('catalog-cli-exports-');
const jsonl = writeExport(join(exportsDir, 'jsonl'), records);
const ingestJson = async (source: string, dataDir: string, extra: string[] = []) => {
  const result = await runCli(['ingest', source, '--json', ...extra], { CATALOG_DATA_DIR: dataDir });
  expect(result.code, result.stderr).toBe(0);
  return jsonOf<IngestJson>(result);
};

describe('exit codes', () => {
  it('--help is 0 and documents every command and exit code', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['ingest', 'build', 'rebuild', 'mirror', 'serve', 'export']) expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    for (const code of ['0', '1', '2', '3', '4', '64', '78', '130']) expect(result.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    const rebuild = await runCli(['rebuild', '--help']);
    expect(rebuild.code).toBe(0);
    expect(rebuild.stdout).toMatch(/--pid <pid>/);
    expect(rebuild.stdout).toMatch(/--url <base>/);
  });

  it.each([
    ['an unknown command', ['frobnicate']],
    ['no command', []],
    ['an unknown option', ['build', '--frobnicate']],
    ['a missing argument', ['ingest']],
    ['a base URL that is not a URL', ['mirror', 'not-a-url', 'dir']],
    ['a bad number', ['mirror', 'http://127.0.0.1:1', 'dir', '--concurrency', 'many']],
    ['an export that does not exist', ['ingest', '/nonexistent/listings.jsonl']],
    ['--url without a staff token', ['rebuild', '--url', 'http://127.0.0.1:1']],
  ])('%s is the usage code 64', async (_, args) => {
    const result = await runCli(args, { CATALOG_DATA_DIR: tempDir() });
    expect(result.code).toBe(64);
    expect(result.stderr.length).toBeGreaterThan(0);
  });

  it('a bad export is the invalid-records code 2, names file and line, and writes nothing', async () => {
    const lines = records.map((r) => JSON.stringify(r));
    lines[2] = JSON.stringify({ ...records[2], installs: -5 });
    writeExport(join(exportsDir, 'bad'), records);
    const bad = writeExport(join(exportsDir, 'bad'), lines);
    const dataDir = tempDir();
    for (const args of [
      ['ingest', bad],
      ['build', '--export', bad, '--quiet'],
      ['rebuild', '--export', bad, '--no-notify', '--quiet'],
    ]) {
      const result = await runCli(args, { CATALOG_DATA_DIR: dataDir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${bad}:3: installs`);
    }
    expect(existsSync(join(dataDir, 'catalog.db'))).toBe(false);
    const skipped = await ingestJson(bad, dataDir, ['--skip-invalid', '--rejects', join(dataDir, 'rejects.jsonl')]);
    expect(skipped).toMatchObject({ listings: records.length - 1, rejected: 1 });
    expect(JSON.parse(readFileSync(join(dataDir, 'rejects.jsonl'), 'utf8')).line).toBe(3);
  });

  it('an invalid environment is the configuration code 78', async () => {
    const result = await runCli(['ingest', jsonl], { CATALOG_DATA_DIR: tempDir(), RATE_LIMIT_MAX: '-1' });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/RATE_LIMIT_MAX/);
  });
});

describe('export formats', () => {
  const dataDir = tempDir('catalog-cli-formats-');
  let reference: IngestJson;
  beforeAll(async () => {
    reference = await ingestJson(jsonl, dataDir);
    expect(reference).toMatchObject({ listings: records.length, added: records.length, snapshotUnchanged: false });
  });

  // The same records in another format (and order) are the same snapshot: nothing is re-ingested.
  it.each([
    ['a JSON array', 'listings.json', () => JSON.stringify(records, null, 2)],
    ['a YAML list', 'listings.yaml', () => toYaml([...records].reverse())],
    ['gzipped JSON Lines', 'listings.jsonl.gz', () => gzipSync(records.map((r) => JSON.stringify(r)).join('\n'))],
    ['a JSON array without a telling name', 'export.data', () => JSON.stringify(records)],
    ['a YAML list without a telling name', 'export.txt', () => toYaml(records)],
  ])('%s is read as the same snapshot', async (_, name, body) => {
    const dir = join(exportsDir, 'formats');
    writeExport(dir, records);
    writeFileSync(join(dir, name), body());
    const report = await ingestJson(join(dir, name), dataDir);
    expect(report).toMatchObject({ listings: records.length, snapshotHash: reference.snapshotHash, snapshotUnchanged: true });
  });

  it.each([
    ['JSON array', 'bad.json', (rs: unknown[]) => JSON.stringify(rs, null, 2)],
    ['YAML list', 'bad.yaml', (rs: unknown[]) => toYaml(rs)],
  ])('a bad record of a %s is reported on the line it starts', async (_, name, format) => {
    const dir = join(exportsDir, `bad-${name}`);
    writeExport(dir, records);
    const edited: unknown[] = records.map((r, i) => (i === 3 ? { ...r, type: 'robot' } : r));
    const text = format(edited);
    writeFileSync(join(dir, name), text);
    const result = await runCli(['ingest', join(dir, name)], { CATALOG_DATA_DIR: tempDir() });
    expect(result.code).toBe(2);
    const line = Number(/:(\d+): type/.exec(result.stderr)?.[1]);
    const lines = text.split('\n');
    // The reported line opens the fourth record: it holds its first field, or the "{" / "- " that starts it.
    expect(lines[line - 1]).toMatch(name.endsWith('.json') ? /^\s*\{/ : /^- /);
    expect(lines.slice(line - 1, line + 3).join('\n')).toContain(records[3]!.id);
  });

  describe('from a URL', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      // A plain static file server for the exports directory, as an object store or CDN would be.
      server = createServer((req, res) => {
        const file = join(exportsDir, normalize(decodeURIComponent(req.url ?? '/')).replace(/^(\.\.[/\\])+/, ''));
        if (!existsSync(file) || !file.startsWith(exportsDir)) {
          res.statusCode = 404;
          res.end();
          return;
        }
        try {
          res.end(readFileSync(file));
        } catch {
          res.statusCode = 404;
          res.end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('is downloaded with its stored files and build summary, then ingested', async () => {
      const fresh = tempDir();
      const report = await ingestJson(`${base}/jsonl/listings.jsonl`, fresh);
      expect(report).toMatchObject({ snapshotHash: reference.snapshotHash, listings: records.length });
      const db = openCatalogDb(join(fresh, 'catalog.db'));
      const files = (db.prepare("SELECT count(*) AS n FROM listing_file WHERE listing_id = 'skill:anthropics/skills#pdf'").get() as { n: number }).n;
      db.close();
      expect(files).toBe(records.find((r) => r.slug === 'pdf')!.files!.length);
    });

    it('a URL that answers 404 is the fetch-failure code 3', async () => {
      const result = await runCli(['ingest', `${base}/nothing/listings.jsonl`], { CATALOG_DATA_DIR: tempDir() });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/404/);
    });
  });
});

describe('ingest', () => {
  it('records the code that wrote the store, as a build does, so the next build copies its unchanged rows', async () => {
    const dataDir = tempDir();
    await ingestJson(jsonl, dataDir);
    const db = openCatalogDb(join(dataDir, 'catalog.db'));
    try {
      const stored = db.prepare("SELECT value FROM meta WHERE key = 'ingestCode'").pluck().get();
      expect(stored).toBe(codeFingerprint());
    } finally {
      db.close();
    }
  });
});

describe('export', () => {
  const rows = (dataDir: string) => {
    const db = openCatalogDb(join(dataDir, 'catalog.db'));
    try {
      return {
        listings: db.prepare('SELECT id, slug, type, installs, stars, record FROM listing ORDER BY id').all(),
        files: db.prepare('SELECT listing_id, ord, path, size, media_type, content FROM listing_file ORDER BY listing_id, ord').all(),
        history: db.prepare('SELECT listing_id, first_day, daily FROM install_history ORDER BY listing_id').all(),
      };
    } finally {
      db.close();
    }
  };

  it('ingest(export(ingest(x))) holds the same listings, files and snapshot', async () => {
    const first = tempDir();
    const report = await ingestJson(jsonl, first);
    const out = join(tempDir(), 'out', 'catalog.jsonl');
    const exported = await runCli(['export', out, '--json'], { CATALOG_DATA_DIR: first });
    expect(exported.code, exported.stderr).toBe(0);
    expect(jsonOf<{ listings: number }>(exported).listings).toBe(records.length);
    const second = tempDir();
    const again = await ingestJson(out, second);
    expect(again.snapshotHash).toBe(report.snapshotHash);
    expect(rows(second)).toEqual(rows(first));
  });

  it('--with-history carries every kept day, so a fresh store gets the whole history back', async () => {
    const dataDir = tempDir();
    await ingestJson(jsonl, dataDir);
    await ingestJson(
      writeExport(
        join(tempDir(), 'day2'),
        records.map((r) => nextDay(r)),
      ),
      dataDir,
    );
    const out = join(tempDir(), 'full.jsonl.gz');
    expect((await runCli(['export', out, '--with-history'], { CATALOG_DATA_DIR: dataDir })).code).toBe(0);
    const fresh = tempDir();
    await ingestJson(out, fresh);
    const history = rows(fresh).history as Array<{ daily: string }>;
    expect(history.every((h) => JSON.parse(h.daily).length === 31)).toBe(true);
    expect(rows(fresh).history).toEqual(rows(dataDir).history);
  });

  it('without a catalog is a usage error', async () => {
    const result = await runCli(['export', join(tempDir(), 'x.jsonl')], { CATALOG_DATA_DIR: tempDir() });
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/no catalog/);
  });
});

describe('rebuild and a running shim', () => {
  const SECRET = 'a-test-secret-of-at-least-thirty-two-bytes';
  const dataDir = tempDir('catalog-cli-shim-');
  const env = { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off', STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_SECRET: SECRET };
  let shim: ChildProcess | undefined;
  /** The shim's log (JSON lines on stdout, LOG_LEVEL info). */
  let shimLog = '';
  let origin: string;
  const extra: ListingRecord[] = snapshotRecords()
    .filter((r) => r.type === 'mcp' && !records.some((s) => s.id === r.id))
    .slice(0, 2);

  const total = async () => ((await (await fetch(`${origin}/api/v1/catalog/stats`)).json()) as { total: number }).total;
  const pidFile = join(dataDir, 'shim.pid');

  beforeAll(async () => {
    const built = await runCli(['build', '--export', jsonl, '--quiet'], env);
    expect(built.code, built.stderr).toBe(0);
    // --quiet: the summary, and no stage lines.
    expect(built.stdout).toContain(`built ${records.length} listings into `);
    expect(built.stderr).not.toMatch(/: (started|done in)/);
    shim = spawn(process.execPath, ['server/start.ts'], {
      env: { PATH: process.env.PATH ?? '', ...env, PORT: '0', PUBLIC_BASE_URL: TEST_BASE_URL, LOG_LEVEL: 'info', CATALOG_BUILD_ON_START: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    origin = await new Promise<string>((resolve, reject) => {
      shim!.stdout!.on('data', (chunk: Buffer) => {
        shimLog += chunk.toString();
        const url = /"url":"(http:\/\/[^"]+)"/.exec(shimLog)?.[1];
        if (url) resolve(url);
      });
      shim!.once('exit', (code) => reject(new Error(`shim exited ${code}: ${shimLog}`)));
    });
  });
  afterAll(() => {
    if (shim && shim.exitCode === null) shim.kill('SIGTERM');
  });

  it('the shim writes its pid file while it serves', () => {
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(shim!.pid));
  });

  it('rebuild finds the shim by its pid file and switches it with SIGHUP', async () => {
    expect(await total()).toBe(records.length);
    const result = await runCli(['rebuild', '--export', writeExport(join(tempDir(), 'more'), [...records, extra[0]!])], env);
    expect(result.code, result.stderr).toBe(0);
    // Not a terminal: each stage's start and end on stderr, stamped with the time; the summary on stdout.
    for (const stage of ['ingest', 'index', 'embeddings', 'site', 'shards', 'discovery', 'front']) {
      expect(result.stderr).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${stage}: started$`, 'm'));
      expect(result.stderr).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${stage}: done in \\d+\\.\\d s$`, 'm'));
    }
    expect(result.stdout).not.toMatch(/: started/);
    expect(result.stdout).toContain(`shim: sent SIGHUP to pid ${shim!.pid}`);
    expect(result.stdout).toMatch(/added 1, changed 0, removed 0/);
    const until = Date.now() + 10_000;
    while ((await total()) !== records.length + 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await total()).toBe(records.length + 1);
    // The shim read the new build's runtime while the rebuild rendered its pages, and switched without reading it again.
    const messages = shimLog
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; buildDir?: string; loadedAhead?: boolean });
    const ahead = messages.findIndex((entry) => entry.msg === 'loaded the next build ahead of its switch');
    const switched = messages.findIndex((entry) => entry.msg === 'switched to a new build');
    expect(ahead).toBeGreaterThanOrEqual(0);
    expect(switched).toBeGreaterThan(ahead);
    expect(messages[switched]).toMatchObject({ buildDir: messages[ahead]!.buildDir, loadedAhead: true });
    expect(result.stdout).toContain(`into ${messages[switched]!.buildDir}`);
  });

  it('rebuild --url switches it through the staff reload route and confirms the build', async () => {
    const token = await mint(new TextEncoder().encode(SECRET), { roles: ['staff'] }, { alg: 'HS256' });
    const result = await runCli(['rebuild', '--export', writeExport(join(tempDir(), 'more2'), [...records, ...extra]), '--url', origin, '--json', '--quiet'], {
      ...env,
      CATALOG_STAFF_TOKEN: token,
    });
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf<{ build: { dir: string }; notify: { via: string; status: { build: string; count: number } } }>(result);
    expect(report.notify.via).toBe('http');
    expect(report.notify.status.count).toBe(records.length + 2);
    expect(report.build.dir.endsWith(report.notify.status.build)).toBe(true);
    expect(await total()).toBe(records.length + 2);
  });

  it('a token the shim refuses is exit code 4, with the new build in place', async () => {
    const result = await runCli(['rebuild', '--no-ingest', '--url', origin, '--token', 'not-a-jwt', '--quiet'], env);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/401/);
  });

  it('after the shim stops its pid file is gone, and rebuild says nobody was told', async () => {
    const exited = new Promise((resolve) => shim!.once('exit', resolve));
    shim!.kill('SIGTERM');
    await exited;
    expect(existsSync(pidFile)).toBe(false);
    const result = await runCli(['rebuild', '--no-ingest', '--quiet'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/shim: not told \(no pid file/);
    const gone = await runCli(['rebuild', '--no-ingest', '--pid', String(shim!.pid), '--quiet'], env);
    expect(gone.code).toBe(4);
    expect(gone.stdout).toMatch(/could not send SIGHUP/);
  });
});
