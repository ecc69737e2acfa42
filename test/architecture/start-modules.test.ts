// The shim's start loads only what its first answer needs: packages that serve some deployments or some requests
// (ioredis with REDIS_URL, jose with a staff key, yaml when a front matter is read) are loaded on first use
// (src/lazy-module.ts), so a static import of one of them slipping back in fails here. That they still work when
// used is tested where they are used (Redis, staff tokens, the docs MCP server, the skills).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const APP = resolve(import.meta.dirname, '..', '..', 'server', 'app.ts');

/** The package names the shim's module graph loads, from a fresh Node process importing the composition root. */
function packagesLoadedByApp(): Set<string> {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    await import(${JSON.stringify(APP)});
    console.log(JSON.stringify(urls));`;
  const urls = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
  const packages = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [scope, name] = url.slice(at + '/node_modules/'.length).split('/');
    packages.add(scope!.startsWith('@') ? `${scope}/${name}` : scope!);
  }
  return packages;
}

describe('start-up', () => {
  it('loads the packages a first answer needs and not those loaded on first use', () => {
    const loaded = packagesLoadedByApp();
    for (const needed of ['zod', 'pino', 'find-my-way', 'rate-limiter-flexible']) expect(loaded, needed).toContain(needed);
    for (const lazy of ['ioredis', 'jose', 'yaml']) expect(loaded, lazy).not.toContain(lazy);
  });
});
