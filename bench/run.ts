// `npm run bench [-- section...]`: the performance targets, measured as figures and ratios within one run.
// Sections: search (shim vs bare node:http at 100k listings), longtail (thousands of distinct keyword queries
// that no answer cache can serve, vs bare node:http; BENCH_LONGTAIL_COUNTS, default the BENCH_COUNT, e.g.
// 100000,1000000 for the 1M row, served from a keyword-only build when no full build exists), build (embedded
// snapshot and 100k), semantic (embeddings stage cost; semantic search, /ask and MCP search latency at 100k:
// bench/semantic.ts); registries (opt-in: MCP registry API, ARD and the Agent Skills index against the API,
// bench/registries.ts); serving (opt-in: static files, by-id and batch through the shim and the nginx front vs bare
// node:http and plain nginx, start-up and RSS: bench/serving.ts); hnsw (opt-in: HNSW construction time and recall
// by graph setting, BENCH_HNSW_COUNTS and BENCH_HNSW_SETTINGS: bench/hnsw.ts).
// Environment: BENCH_COUNT (default 100000), BENCH_SECONDS per load run (default 10), BENCH_BUILD_COUNTS (build rows).
import { dirname, join } from 'node:path';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { BENCH_DIR, changedExport, load, run, scaleExport, serve, table, timedBuild } from './harness.ts';
import { isCurrentRuntime } from '../src/artifacts/runtime-manifest.ts';
import { longTailPaths, loadUnique, misspelledPaths } from './longtail.ts';
import { semanticSection } from './semantic.ts';
import { DEFAULT_SETTINGS, hnswSection } from './hnsw.ts';
import { registriesSection } from './registries.ts';
import { servingSection } from './serving.ts';

const COUNT = Number(process.env.BENCH_COUNT ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const sections = process.argv.slice(2).length ? process.argv.slice(2) : ['build', 'search', 'longtail', 'semantic'];

/** Filtered keyword searches of the kind people send: common and rare words, with type/category/owner filters. */
export const SEARCH_PATHS = [
  '/api/v1/listings?q=server&type=mcp&limit=20',
  '/api/v1/listings?q=postgres&limit=20',
  '/api/v1/listings?q=react&category=frontend-design&limit=20',
  '/api/v1/listings?q=browser+automation&types=skill,mcp&limit=20',
  '/api/v1/listings?q=github&sort=stars&limit=20',
  '/api/v1/listings?q=database+query&category=databases&limit=20',
  '/api/v1/listings?q=slack&type=mcp&limit=20',
  '/api/v1/listings?q=agent&type=skill&category=developer-tools&limit=20',
  '/api/v1/listings?q=pdf&limit=20',
  '/api/v1/listings?q=kubernetes&sort=trending&limit=20',
  '/api/v1/listings?q=mcp+server&limit=20',
  '/api/v1/listings?q=data&type=plugin&limit=20',
];

/**
 * Whether a data directory has a build this checkout can serve. A build is reused as it is otherwise (the shims
 * of earlier runs recorded search signals, which would make a rebuild's fingerprint differ every run).
 */
function servable(dataDir: string): boolean {
  return isCurrentRuntime(join(dataDir, 'current'));
}

/** The full build of `count` listings; one an older checkout left in another format is built again from its catalog. */
async function ensureBuilt(count: number): Promise<string> {
  const dataDir = join(BENCH_DIR, `data-${count}`);
  if (!servable(dataDir)) await timedBuild(dataDir, existsSync(join(dataDir, 'current')) ? undefined : await scaleExport(count));
  return dataDir;
}

async function searchSection(): Promise<void> {
  const dataDir = await ensureBuilt(COUNT);
  const shim = await serve('server/start.ts', { CATALOG_DATA_DIR: dataDir, CATALOG_BUILD_ON_START: 'false', RATE_LIMIT_MAX: '1000000000' });
  const sizes = await Promise.all(SEARCH_PATHS.map(async (path) => (await (await fetch(shim.origin + path)).arrayBuffer()).byteLength));
  const bodyBytes = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
  const bare = await serve('bench/bare-server.ts', { BODY_BYTES: String(bodyBytes) }, '/');
  try {
    await load(shim.origin, SEARCH_PATHS, { seconds: 2 });
    await load(bare.origin, ['/'], { seconds: 2 });
    const shimLoad = await load(shim.origin, SEARCH_PATHS, { seconds: SECONDS });
    const bareLoad = await load(bare.origin, ['/'], { seconds: SECONDS });
    const browse = await load(
      shim.origin,
      ['/api/v1/listings?limit=20', '/api/v1/listings?type=mcp&sort=stars&limit=20', '/api/v1/listings?category=databases&limit=20&offset=40'],
      { seconds: SECONDS / 2 },
    );
    console.log(`\n## search at ${COUNT.toLocaleString('en')} listings (${SECONDS} s per run, 16 connections)\n`);
    console.log(
      table([
        {
          server: `bare node:http (fixed ${bodyBytes}-byte body)`,
          'req/s': bareLoad.requestsPerSecond,
          'p50 ms': bareLoad.p50,
          'p99 ms': bareLoad.p99,
          errors: bareLoad.errors + bareLoad.non2xx,
        },
        {
          server: 'shim: filtered keyword search',
          'req/s': shimLoad.requestsPerSecond,
          'p50 ms': shimLoad.p50,
          'p99 ms': shimLoad.p99,
          errors: shimLoad.errors + shimLoad.non2xx,
        },
        { server: 'shim: browse (no q)', 'req/s': browse.requestsPerSecond, 'p50 ms': browse.p50, 'p99 ms': browse.p99, errors: browse.errors + browse.non2xx },
      ]),
    );
    console.log(`\nshim/bare requests per second: ${(shimLoad.requestsPerSecond / bareLoad.requestsPerSecond).toFixed(2)} (target >= 0.5)`);
    console.log(`filtered keyword search p99: ${shimLoad.p99} ms (target < 10 ms)`);
    console.log(
      `shim start (spawn → first answer): ${Math.round(shim.readyMs)} ms (target < 1000 ms); RSS after load ${shim.rssMB()} MB, peak ${shim.peakRssMB()} MB, with the semantic index when the build has one (target < 500 MB with it aside)`,
    );
  } finally {
    await shim.stop();
    await bare.stop();
  }
}

/**
 * A data directory a keyword search can be served from: the full build of `count` listings when one exists, or
 * else a build of the index stage alone (bench/keyword-build.ts), so a 1M row does not wait for a full build.
 */
async function ensureSearchable(count: number): Promise<string> {
  const full = join(BENCH_DIR, `data-${count}`);
  if (existsSync(join(full, 'current'))) return ensureBuilt(count);
  const keywordOnly = join(BENCH_DIR, `keyword-${count}`);
  if (servable(keywordOnly)) return keywordOnly;
  const started = performance.now();
  // One an older checkout left in another format is built again from its own catalog, without ingesting anew.
  const source = existsSync(join(keywordOnly, 'current')) ? [] : [await scaleExport(count)];
  const result = await run(process.execPath, ['bench/keyword-build.ts', keywordOnly, ...source]);
  if (result.code !== 0) throw new Error(`keyword build failed (${result.code}): ${result.stderr.slice(-2000)}`);
  console.error(`keyword index of ${count.toLocaleString('en')} listings ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return keywordOnly;
}

/** Distinct keyword searches (real catalog words x filter/sort variants), each sent once per cycle. */
async function longtailSection(): Promise<void> {
  const counts = (process.env.BENCH_LONGTAIL_COUNTS ?? String(COUNT)).split(',').map(Number);
  const paths = longTailPaths(join(import.meta.dirname, '..', 'data/listings.jsonl'));
  const typos = misspelledPaths(join(import.meta.dirname, '..', 'data/listings.jsonl'));
  const rows: Array<Record<string, string | number>> = [];
  const notes: string[] = [];
  for (const count of counts) {
    const dataDir = await ensureSearchable(count);
    const shim = await serve('server/start.ts', { CATALOG_DATA_DIR: dataDir, CATALOG_BUILD_ON_START: 'false', RATE_LIMIT_MAX: '1000000000' });
    try {
      const sample = paths.filter((_, i) => i % 200 === 0);
      const sizes = await Promise.all(sample.map(async (path) => (await (await fetch(shim.origin + path)).arrayBuffer()).byteLength));
      const bodyBytes = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
      const bare = await serve('bench/bare-server.ts', { BODY_BYTES: String(bodyBytes) }, '/');
      try {
        // Warm-up on other queries than the measured ones (the first half of the list), then the second half.
        const warm = paths.slice(0, paths.length / 2);
        const measured = paths.slice(paths.length / 2);
        await loadUnique(shim.origin, warm, { seconds: 2, connections: 32 });
        await load(bare.origin, ['/'], { seconds: 2, connections: 32 });
        const shimLoad = await loadUnique(shim.origin, measured, { seconds: SECONDS, connections: 32 });
        const bareLoad = await load(bare.origin, ['/'], { seconds: SECONDS, connections: 32 });
        const typoLoad = await loadUnique(shim.origin, typos, { seconds: SECONDS, connections: 32 });
        rows.push(
          {
            listings: count.toLocaleString('en'),
            server: `bare node:http (${bodyBytes}-byte body)`,
            'req/s': bareLoad.requestsPerSecond,
            'p50 ms': bareLoad.p50,
            'p99 ms': bareLoad.p99,
            'ratio to bare': '1.00',
            errors: bareLoad.errors + bareLoad.non2xx,
          },
          {
            listings: count.toLocaleString('en'),
            server: `shim: ${measured.length.toLocaleString('en')} distinct q`,
            'req/s': shimLoad.requestsPerSecond,
            'p50 ms': shimLoad.p50,
            'p99 ms': shimLoad.p99,
            'ratio to bare': (shimLoad.requestsPerSecond / bareLoad.requestsPerSecond).toFixed(2),
            errors: shimLoad.errors + shimLoad.non2xx,
          },
          {
            listings: count.toLocaleString('en'),
            server: `shim: ${typos.length.toLocaleString('en')} distinct misspelled q`,
            'req/s': typoLoad.requestsPerSecond,
            'p50 ms': typoLoad.p50,
            'p99 ms': typoLoad.p99,
            'ratio to bare': (typoLoad.requestsPerSecond / bareLoad.requestsPerSecond).toFixed(2),
            errors: typoLoad.errors + typoLoad.non2xx,
          },
        );
        notes.push(
          `${count.toLocaleString('en')}: ${shimLoad.sent.toLocaleString('en')} requests over ${shimLoad.distinct.toLocaleString('en')} distinct URLs; shim RSS after load ${shim.rssMB()} MB, peak ${shim.peakRssMB()} MB`,
        );
      } finally {
        await bare.stop();
      }
    } finally {
      await shim.stop();
    }
  }
  console.log(`\n## long-tail keyword search (${paths.length.toLocaleString('en')} distinct queries, 32 connections, ${SECONDS} s per run)\n`);
  console.log(table(rows));
  console.log(`\n${notes.join('\n')}`);
  console.log(
    'targets: at 100k ratio >= 0.35 and p99 < 15 ms; at 1M p99 < 50 ms; RSS at 100k < 500 MB with the semantic index aside (the shim loads it when the build has embeddings)',
  );
}

/**
 * Full builds, an unchanged rebuild and incremental rebuilds (1 % and 10 % of listings changed, ingested and built)
 * of the embedded snapshot (30950) and of generated catalogs: BENCH_BUILD_COUNTS, default "30950,<BENCH_COUNT>"
 * (e.g. 100000,1000000 for the 1M rows). Peak RSS: the build's process, and its renderers' summed. Pages: the
 * listing and owner pages rendered, and those carried over unchanged from the build being replaced.
 */
async function buildSection(): Promise<void> {
  const counts = (process.env.BENCH_BUILD_COUNTS ?? `30950,${COUNT}`).split(',').map(Number);
  const rows: Array<Record<string, string | number>> = [];
  const row = (label: string, kind: string, figures: Awaited<ReturnType<typeof timedBuild>>, full?: number) => ({
    catalog: label,
    build: kind,
    s: figures.seconds.toFixed(1),
    'live s': figures.liveSeconds?.toFixed(1) ?? '',
    '/full': full === undefined ? '' : (figures.seconds / full).toFixed(2),
    'build RSS MB': figures.peakRssMB,
    renderers: figures.renderers,
    'renderers RSS MB': figures.renderersPeakRssMB,
    'total RSS MB': figures.peakRssMB + figures.renderersPeakRssMB,
    'pages rendered': figures.pagesRendered,
    'pages carried': figures.pagesCarried,
    'cpu s': (figures.cpuMs / 1000).toFixed(1),
    stages: Object.entries(figures.stages)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
      .join(', '),
    'stages cpu': Object.entries(figures.stagesCpu)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
      .join(', '),
  });
  for (const count of counts) {
    const embedded = count === 30950;
    const label = embedded ? 'embedded snapshot' : `generated ${count.toLocaleString('en')}`;
    const exportPath = embedded ? join(import.meta.dirname, '..', 'data/listings.jsonl') : await scaleExport(count);
    const dataDir = join(BENCH_DIR, `data-build-${count}`);
    rmSync(dataDir, { recursive: true, force: true });
    const full = await timedBuild(dataDir, exportPath);
    rows.push(row(label, 'full', full));
    rows.push(row(label, 'unchanged', await timedBuild(dataDir, exportPath), full.seconds));
    for (const percent of [1, 10]) {
      // The embedded snapshot's export sits in the repository: its changed copies go to the bench directory.
      const source = embedded ? await copiedExport(exportPath) : exportPath;
      rows.push(row(label, `${percent} % changed`, await timedBuild(dataDir, await changedExport(source, percent)), full.seconds));
    }
    console.log(table(rows.slice(-4)));
    if (count === COUNT) {
      rmSync(join(BENCH_DIR, `data-${COUNT}`), { recursive: true, force: true });
      const { renameSync } = await import('node:fs');
      renameSync(dataDir, join(BENCH_DIR, `data-${COUNT}`));
    }
  }
  console.log('\n## build (targets: 1M full under 30 minutes and 8 GB total RSS; 1 % changed under 5 minutes at 1M, 30 s at 100k)\n');
  console.log(table(rows));
}

/** The embedded snapshot's export, with its stored files and build summary, linked into the bench directory. */
async function copiedExport(exportPath: string): Promise<string> {
  const dir = join(BENCH_DIR, 'export-embedded');
  const out = join(dir, 'listings.jsonl');
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  copyFileSync(exportPath, out);
  copyFileSync(join(dirname(exportPath), 'build-summary.json'), join(dir, 'build-summary.json'));
  symlinkSync(join(dirname(exportPath), 'files'), join(dir, 'files'));
  return out;
}

const SECTIONS: Record<string, () => Promise<void>> = {
  build: buildSection,
  search: searchSection,
  longtail: longtailSection,
  semantic: () => semanticSection({ count: COUNT, seconds: SECONDS, ensureBuilt, scaleExport, searchPaths: SEARCH_PATHS }),
  // Opt-in (`npm run bench -- registries`); BENCH_DATA_DIR serves an existing data directory instead of a scale build.
  registries: async () => registriesSection(process.env.BENCH_DATA_DIR ?? (await ensureBuilt(COUNT))),
  // Opt-in (`npm run bench -- serving`), BENCH_DATA_DIR as above; needs nginx for the front rows.
  serving: async () => servingSection(process.env.BENCH_DATA_DIR ?? (await ensureBuilt(COUNT)), COUNT, SECONDS),
  // Opt-in (`npm run bench -- hnsw`): graph construction cost and recall by setting (bench/hnsw.ts).
  hnsw: () =>
    hnswSection({
      counts: (process.env.BENCH_HNSW_COUNTS ?? String(COUNT)).split(',').map(Number),
      settings: process.env.BENCH_HNSW_SETTINGS ?? DEFAULT_SETTINGS,
      scaleExport,
    }),
};
for (const name of sections) {
  const section = SECTIONS[name];
  if (!section) throw new Error(`unknown section ${name}; known: ${Object.keys(SECTIONS).join(', ')}`);
  await section();
}
