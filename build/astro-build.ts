// Child process of the site stage (build/stages/site-stage.ts): `astro build` of <root> into <outDir>, then its figures
// to the parent over IPC. Usage: node build/astro-build.ts <root> <outDir> (CATALOG_RUNTIME_DIR, CATALOG_BASE_URL set;
// CATALOG_COMPRESS_LIST: where it lists, a path a line, the files it wrote that get .br and .gz).
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { enableCompileCache } from '../src/compile-cache.ts';
import { COMPRESSIBLE, isSharePage, worthCompressing } from './page-compression.ts';
import { walkFiles } from './walk-files.ts';

// Started early (CATALOG_RENDER_GATE), a renderer waits for its parent's go before it reads the runtime: if the parent
// is gone (killed, interrupted), there is no go to wait for and no build to write into.
if (process.env.CATALOG_RENDER_GATE === '1') {
  // The parent may be gone before this line ran: its channel's 'disconnect' was then emitted already.
  if (!process.connected) process.exit(1);
  process.once('disconnect', () => process.exit(1));
}
// Astro, Vite and their bundler are most of what a renderer compiles before its first page.
enableCompileCache();
// Set before astro is imported: it reads the variable when it loads, and would otherwise send telemetry.
process.env.ASTRO_TELEMETRY_DISABLED = '1';
const { build } = await import('astro');

const [root, outDir] = process.argv.slice(2);
if (!root || !outDir) throw new Error('usage: node build/astro-build.ts <root> <outDir>');

const started = performance.now();
// A cache directory of its own, so builds running at once (tests, a rebuild beside a start) never share one.
await build({ root, outDir, cacheDir: join(outDir, '.cache'), logLevel: 'warn' });
const seconds = (performance.now() - started) / 1000;
// One walk of what this process wrote: its pages counted, and the files worth compressing listed for the site stage
// (CATALOG_COMPRESS_LIST), which then needs no walk of the merged site.
const client = join(outDir, 'client');
const compressList = process.env.CATALOG_COMPRESS_LIST;
let pages = 0;
let sharePages = 0;
const list: string[] = [];
for (const path of walkFiles(client)) {
  if (path.endsWith('.html')) {
    pages++;
    if (isSharePage(path)) sharePages++;
  }
  if (compressList && COMPRESSIBLE.test(path) && worthCompressing(path, statSync(join(client, path)).size)) list.push(path);
}
if (compressList) writeFileSync(compressList, list.length > 0 ? `${list.join('\n')}\n` : '');
const report = { pages, sharePages, seconds, maxRssKB: process.resourceUsage().maxRSS };
if (process.send) process.send({ report }, () => process.exit(0));
else console.log(JSON.stringify(report));
