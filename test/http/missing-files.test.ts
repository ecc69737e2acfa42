// A file gone from the live build (a page removed, a disk fault) never makes the shim answer 500: over real HTTP, a
// listing page whose index.html, .br and .gz are deleted after the shim resolved it answers 404 for every
// Accept-Encoding, and a page that lost only one encoding is resolved again and served in another.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { tempDir } from '../support/fixtures.ts';

const ENCODINGS = ['br', 'gzip', 'gzip, deflate, br', 'identity', ''] as const;
// Pages above the precompression threshold, so each has .br and .gz siblings to lose.
const GONE = 'agent-browser';
const HALF_GONE = 'find-skills';

let work: string;
let server: TestServer;
let site: string;

beforeAll(async () => {
  work = tempDir('catalog-missing-files-');
  // A copy of the shared build made of hard links: deleting a name in it leaves the shared build whole.
  execFileSync('cp', ['-al', await sharedBuildDir(), join(work, 'build')]);
  site = join(work, 'build', 'site');
  for (const slug of [GONE, HALF_GONE]) expect(existsSync(join(site, 'listings', `${slug}.html.br`))).toBe(true);
  server = await startServer({}, { buildDir: join(work, 'build') });
});

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (slug: string, encoding: string, accept = 'text/html') =>
  fetch(`${server.origin}/listings/${slug}/`, { headers: { 'accept-encoding': encoding, accept } });

describe('a file missing from the live build', () => {
  it('answers 404, not 500, for every Accept-Encoding once the page and its encodings are gone', async () => {
    // Resolved (files found, headers prepared) and not read into memory: HEAD asks for no body.
    for (const encoding of ENCODINGS) {
      const head = await fetch(`${server.origin}/listings/${GONE}/`, { method: 'HEAD', headers: { 'accept-encoding': encoding } });
      expect(head.status).toBe(200);
    }
    for (const suffix of ['', '.br', '.gz']) rmSync(join(site, 'listings', `${GONE}.html${suffix}`));
    for (const encoding of ENCODINGS) {
      const answer = await get(GONE, encoding);
      expect({ encoding, status: answer.status }).toEqual({ encoding, status: 404 });
      await answer.arrayBuffer();
    }
    // An API client gets the documented JSON error.
    const json = await get(GONE, 'br', 'application/json');
    expect(json.status).toBe(404);
    expect(((await json.json()) as { code: string }).code).toBe('not_found');
  });

  it('resolves the page again when only one encoding is gone, and serves another', async () => {
    const before = await fetch(`${server.origin}/listings/${HALF_GONE}/`, { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
    expect(before.headers.get('content-encoding')).toBe('br');
    rmSync(join(site, 'listings', `${HALF_GONE}.html.br`));
    const after = await get(HALF_GONE, 'gzip, deflate, br');
    expect(after.status).toBe(200);
    expect(after.headers.get('content-encoding')).toBe('gzip');
    expect(await after.text()).toContain('<!DOCTYPE html>');
  });
});
