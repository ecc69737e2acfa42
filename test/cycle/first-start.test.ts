// Guarantees the first start as a person sees it (`npm start` on a fresh data directory, output not a terminal):
// plain stage lines while it builds, one "Serving on" line as soon as the build's index exists, the API and search
// answering while the site stage still renders (pages answer 503 with Retry-After until then), the pages as soon as
// they are rendered while the build writes the rest (which answers 503 until then), and everything once the build
// ends. A real shim process, a real build child and real HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleRecords, writeExport } from '../support/fixtures.ts';
import { scratchDirs } from './scratch.ts';

const tempDir = scratchDirs();

interface Seen {
  stdout: string;
  stderr: string;
}

/** Resolves when the shim's output (stdout or stderr) matches, with the match; rejects if it exits first. */
function waitFor(shim: ChildProcess, seen: Seen, pattern: RegExp, timeoutMs = 240_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(`${seen.stdout}\n${seen.stderr}`);
      if (!match) return false;
      cleanup();
      resolve(match);
      return true;
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`the shim exited (${code}) before ${pattern}:\n${seen.stdout}\n${seen.stderr}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${seen.stdout}\n${seen.stderr}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      shim.stdout!.off('data', check);
      shim.stderr!.off('data', check);
      shim.off('exit', onExit);
    };
    if (check()) return;
    // After the listener that appends the chunk (registered first), so the text is there when this one runs.
    shim.stdout!.on('data', check);
    shim.stderr!.on('data', check);
    shim.once('exit', onExit);
  });
}

describe('the first start on a fresh data directory', () => {
  const seen: Seen = { stdout: '', stderr: '' };
  let shim: ChildProcess | undefined;
  let origin = '';
  const early: Record<string, { status: number; retryAfter: string | null; body: string }> = {};
  const pagesFirst: Record<string, { status: number; retryAfter: string | null; encoding: string | null; body: string }> = {};
  let siteStillBuilding = false;
  let buildStillRunning = false;

  beforeAll(async () => {
    const dir = tempDir('catalog-first-start-');
    const exportPath = writeExport(join(dir, 'export'), sampleRecords(6));
    shim = spawn(process.execPath, ['server/start.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        TMPDIR: process.env.TMPDIR ?? '',
        CATALOG_DATA_DIR: join(dir, 'data'),
        CATALOG_EXPORT: exportPath,
        PORT: '0',
        LOG_LEVEL: 'warn',
        SEARCH_SIGNALS: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    shim.stdout!.on('data', (chunk: Buffer) => (seen.stdout += chunk.toString()));
    shim.stderr!.on('data', (chunk: Buffer) => (seen.stderr += chunk.toString()));
    const serving = await waitFor(shim, seen, /^Serving on \S+ \(listening on (http:\/\/[^)]+)\)$/m);
    origin = serving[1]!;
    // At once, while the site stage renders: the API, search, and a page as a browser and as an API client ask.
    const ask = async (name: string, path: string, accept: string) => {
      const response = await fetch(`${origin}${path}`, { headers: { accept } });
      early[name] = { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
    };
    await Promise.all([
      ask('api', '/api/v1/listings?limit=2', 'application/json'),
      ask('search', `/api/v1/listings?q=${encodeURIComponent(sampleRecords(6)[0]!.name)}`, 'application/json'),
      ask('home', '/', 'text/html'),
      ask('homeJson', '/', 'application/json'),
      ask('browse', '/browse?q=pdf', 'text/html'),
    ]);
    siteStillBuilding = !/^The pages answer now/m.test(seen.stdout);
    await waitFor(shim, seen, /^The pages answer now on /m);
    // At once, while the build writes the rest of the site: the pages, and files of the later stages.
    const askNow = async (name: string, path: string, accept: string) => {
      const response = await fetch(`${origin}${path}`, { headers: { accept, 'accept-encoding': 'br, gzip' } });
      pagesFirst[name] = {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        encoding: response.headers.get('content-encoding'),
        body: await response.text(),
      };
    };
    await Promise.all([
      askNow('home', '/', 'text/html'),
      askNow('browse', '/browse?q=pdf', 'text/html'),
      askNow('llms', '/llms.txt', 'text/plain'),
      askNow('openapi', '/openapi.json', 'application/json'),
    ]);
    buildStillRunning = !/^The site is built/m.test(seen.stdout);
    await waitFor(shim, seen, /^The site is built: every page and file answers/m);
  }, 300_000);

  afterAll(() => {
    if (shim && shim.exitCode === null) shim.kill('SIGTERM');
  });

  it('says what it does in plain lines, stamped with the time, with no terminal control codes', () => {
    expect(seen.stdout).toMatch(/^No build in .+: building from .+ \(first start only/m);
    for (const stage of ['ingest', 'index', 'embeddings', 'site', 'shards', 'discovery', 'front']) {
      expect(seen.stderr).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${stage}: started$`, 'm'));
      expect(seen.stderr).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${stage}: done in \\d+\\.\\d s$`, 'm'));
    }
    // eslint-disable-next-line no-control-regex
    expect(`${seen.stdout}${seen.stderr}`).not.toMatch(/\u001b\[/);
    // One plain line says where to open it, once.
    expect(seen.stdout.match(/^Serving on /gm)).toHaveLength(1);
  });

  it('answers the API and search before the site stage ends; pages say they are being built', () => {
    expect(siteStillBuilding).toBe(true);
    expect(seen.stdout.indexOf('Serving on')).toBeLessThan(seen.stdout.indexOf('The site is built'));
    expect(early.api!.status).toBe(200);
    expect(JSON.parse(early.api!.body).items).toHaveLength(2);
    expect(early.search!.status).toBe(200);
    expect(JSON.parse(early.search!.body).items.length).toBeGreaterThan(0);
    expect(early.home).toMatchObject({ status: 503, retryAfter: '10' });
    expect(early.home!.body).toContain('The site is still being built');
    expect(early.homeJson).toMatchObject({ status: 503, retryAfter: '10' });
    expect(JSON.parse(early.homeJson!.body)).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('still being built') });
    expect(early.browse).toMatchObject({ status: 503, retryAfter: '10' });
  });

  it('serves the pages as soon as they are rendered, while the rest of the site is still being written', () => {
    expect(buildStillRunning).toBe(true);
    expect(seen.stdout.indexOf('The pages answer now')).toBeLessThan(seen.stdout.indexOf('The site is built'));
    expect(pagesFirst.home!.status).toBe(200);
    expect(pagesFirst.home!.body).toContain('<html');
    // Served as the file is: its compressed copies may still be being written.
    expect(pagesFirst.home!.encoding).toBeNull();
    expect(pagesFirst.browse!.status).toBe(200);
    for (const name of ['llms', 'openapi']) {
      expect(pagesFirst[name], name).toMatchObject({ status: 503, retryAfter: '10' });
      expect(pagesFirst[name]!.body, name).toContain('still being written');
    }
  });

  it('serves every page and file once the build has ended', async () => {
    const home = await fetch(`${origin}/`, { headers: { accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<html');
    const browse = await fetch(`${origin}/browse?q=pdf`, { headers: { accept: 'text/html' } });
    expect(browse.status).toBe(200);
    expect((await fetch(`${origin}/api/v1/listings?limit=1`)).status).toBe(200);
    expect((await fetch(`${origin}/llms.txt`)).status).toBe(200);
    expect((await fetch(`${origin}/openapi.json`)).status).toBe(200);
  });
});
