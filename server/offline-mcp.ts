// The offline half of the catalog-mcp package (packages/catalog-mcp): the normal shim, read-only, over a local data
// directory or mirror, answered in this process without a socket, so the stdio package serves the same four tools
// as the live service with no network. A mirror keeps its own data directory under data/ (`catalog mirror`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { buildDirs, currentBuild } from '../src/artifacts/build-dirs.ts';
import { createServeApp } from './serve.ts';

const IN_PROCESS_ORIGIN = 'http://catalog.offline';

export interface OfflineCatalog {
  /** The MCP endpoint, as a URL the fetch below answers. */
  url: URL;
  fetch: typeof fetch;
  close(): Promise<void>;
}

/** The catalog MCP over `dir` (a data directory with a current build, or a mirror holding one in data/). */
export function offlineCatalog(dir: string): OfflineCatalog {
  const dataDir = existsSync(join(dir, 'data', 'current')) ? join(dir, 'data') : dir;
  const buildDir = currentBuild(buildDirs(dataDir));
  if (!buildDir) throw new Error(`${dir} holds no finished build: run \`npm run build\` (or \`npm run catalog -- mirror\`) first`);
  const config = loadConfig({ ...process.env, CATALOG_DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEARCH_THREAD: 'false' }, {});
  const app = createServeApp(config, { buildDir, dataDir }, pino({ level: 'silent' }));
  const fetchInProcess: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return app.fetch(url.pathname + url.search, init);
  };
  return { url: new URL('/mcp', IN_PROCESS_ORIGIN), fetch: fetchInProcess, close: () => app.close() };
}
