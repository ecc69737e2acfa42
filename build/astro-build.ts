// Child process of the site stage (build/stages/site-stage.ts): `astro build` of <root> into <outDir>, then its figures
// to the parent over IPC. Usage: node build/astro-build.ts <root> <outDir> (CATALOG_RUNTIME_DIR, CATALOG_BASE_URL set).
import { join } from 'node:path';
import { enableCompileCache } from '../src/compile-cache.ts';
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
let pages = 0;
for (const path of walkFiles(join(outDir, 'client'))) if (path.endsWith('.html')) pages++;
const report = { pages, seconds, maxRssKB: process.resourceUsage().maxRSS };
if (process.send) process.send({ report }, () => process.exit(0));
else console.log(JSON.stringify(report));
