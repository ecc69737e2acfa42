// Guarantees the OpenAPI document is valid OpenAPI 3.1, describes every path of SERVICE.md, and matches
// the shim: every route is documented, every documented route is served, every documented file is built.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { validate } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { OPERATIONS, routePath } from '../../src/domain/contract/operations.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

// SERVICE.md is the interface of record (docs/spec/SERVICE.md).
const SERVICE = readFileSync('docs/spec/SERVICE.md', 'utf8');

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

const buildDir = await sharedBuildDir();
const siteFile = (path: string) => join(buildDir, 'site', path);

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1 under a real validator', async () => {
    const document = await json<Record<string, unknown>>(await server.fetch('/openapi.json'));
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect('errors' in result ? result.errors : []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is served as JSON and as YAML (twice), with the same content', async () => {
    const fromJson = await json(await server.fetch('/openapi.json'));
    for (const path of ['/openapi.yaml', '/api/openapi.yaml']) {
      const res = await server.fetch(path);
      expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
      expect(parseYaml(await res.text())).toEqual(fromJson);
    }
  });

  it('contains every path named in SERVICE.md', async () => {
    const document = await json<{ paths: Record<string, Record<string, unknown>> }>(await server.fetch('/openapi.json'));
    const named = new Set<string>();
    for (const match of SERVICE.matchAll(/`((?:GET|POST) )?(\/[A-Za-z0-9_./{}:-]*)`/g)) {
      const path = match[2]!.replace(/\/$/, '') || '/';
      if (path.length > 1 && !path.includes('...')) named.add(path);
    }
    expect(named.size).toBeGreaterThan(40);
    const documented = Object.keys(document.paths);
    const missing = [...named].filter((path) => !documented.includes(path) && !documented.includes(path.replace('/v1/', '/v1')));
    expect(missing).toEqual([]);
  });

  it('every route of the shim is documented, and every documented route is served', () => {
    const routes = server.app.router.list().map((r) => `${r.method} ${r.path}`);
    const documented = OPERATIONS.filter((op) => op.servedBy === 'route').flatMap((op) => op.paths.map((p) => `${op.method} ${routePath(p)}`));
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((d) => !routes.includes(d))).toEqual([]);
  });

  it('every documented file exists in the build', () => {
    const missing = OPERATIONS.filter((op) => op.servedBy === 'static')
      .flatMap((op) => op.paths)
      .filter((path) => !existsSync(siteFile(path)) && !existsSync(siteFile(`${path}/index.html`)));
    expect(missing).toEqual([]);
  });
});
