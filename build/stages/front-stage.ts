// The front stage: renders the nginx front for this build's own output (src/nginx-front/nginx-front.ts) into front/:
// http.conf and server.conf to include, and nginx.conf, a complete example for one shim on 127.0.0.1:8081.
// `npm run start:front` renders its own nginx.conf around the same two files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEBIAN_BROTLI_STATIC_MODULE, renderHttpConf, renderNginxConf, renderServerConf, type SiteManifests } from '../../src/nginx-front/nginx-front.ts';
import { MANIFEST_FILES } from '../../src/domain/contract/static-serving.ts';
import { BUILD_RECORD_FILE } from '../../src/artifacts/build-dirs.ts';
import type { Stage } from './stage.ts';

export function readSiteManifests(siteRoot: string): SiteManifests {
  const read = (name: string) => (existsSync(join(siteRoot, name)) ? JSON.parse(readFileSync(join(siteRoot, name), 'utf8')) : {});
  return { contentTypes: read(MANIFEST_FILES.contentTypes), negotiation: read(MANIFEST_FILES.negotiation), headers: read(MANIFEST_FILES.headers) };
}

/** The public origin a finished build was made for (its build.json). */
function recordedBaseUrl(buildDir: string): string {
  const record = JSON.parse(readFileSync(join(buildDir, BUILD_RECORD_FILE), 'utf8')) as { baseUrl?: unknown };
  if (typeof record.baseUrl !== 'string') throw new Error(`${buildDir}/build.json names no baseUrl`);
  return record.baseUrl;
}

/** Writes front/http.conf, front/server.conf and the example front/nginx.conf of a build; returns the front directory. */
export function writeFrontConfig(buildDir: string, baseUrl: string = recordedBaseUrl(buildDir)): string {
  const siteRoot = join(buildDir, 'site');
  const dir = join(buildDir, 'front');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'http.conf'), renderHttpConf(baseUrl, basename(buildDir)));
  writeFileSync(join(dir, 'server.conf'), renderServerConf(siteRoot, readSiteManifests(siteRoot)));
  writeFileSync(
    join(dir, 'nginx.conf'),
    renderNginxConf({
      prefix: '/var/lib/catalog-front',
      listen: '127.0.0.1:8080',
      upstreams: ['127.0.0.1:8081'],
      httpConf: join(dir, 'http.conf'),
      serverConf: join(dir, 'server.conf'),
      brotliModule: existsSync(DEBIAN_BROTLI_STATIC_MODULE) ? DEBIAN_BROTLI_STATIC_MODULE : undefined,
    }),
  );
  return dir;
}

export const FRONT_STAGE: Stage = {
  name: 'front',
  // The manifests the stages that write site/ leave there (content types, negotiation, headers).
  after: ['site', 'shards', 'discovery'],
  async run(ctx) {
    writeFrontConfig(ctx.buildDir, ctx.baseUrl);
  },
};
