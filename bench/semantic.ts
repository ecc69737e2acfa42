// The `semantic` bench section: the embeddings stage's cost (cold and cached) on the embedded snapshot and
// the generated catalog, then semantic search, /ask and MCP search_catalog latency through the shim next to
// plain keyword listing search. Every request URL (or body) is distinct, so the shim's response cache never
// answers and the figures are the search itself.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadFigures, ROOT, serve, table, timedBuild, type LoadFigures, type Served } from './harness.ts';
import { catalogWords, shuffle } from './longtail.ts';

export interface SemanticBenchOptions {
  count: number;
  seconds: number;
  /** The generated catalog's data directory, built with the default stages. */
  ensureBuilt(count: number): Promise<string>;
  scaleExport(count: number): Promise<string>;
  /** The search section's keyword queries, for the side-by-side row. */
  searchPaths: readonly string[];
}

/** Natural-language requests of the kind people and agents send (no catalog vocabulary required). */
export const SEMANTIC_QUERIES = [
  'something to let my agent query Postgres',
  'automate a browser to fill web forms',
  'turn a PDF into text',
  'send a message to slack when a build fails',
  'generate images from a text prompt',
  'review my pull requests for bugs',
  'read and write files in google drive',
  'deploy my app to kubernetes',
  'write unit tests for python code',
  'search the web and summarize results',
  'manage jira tickets from chat',
  'transcribe audio recordings',
  'track expenses in a spreadsheet',
  'scrape product prices from websites',
  'help me design a landing page',
  'monitor server logs for errors',
  'translate documents into other languages',
  'connect to a mysql database',
  'create presentation slides',
  'schedule meetings on my calendar',
];

/** Filters combined with the queries: none, a type, several types, a category, an owner-free mix, a sort. */
const FILTERS = [
  '',
  '&type=mcp',
  '&types=skill,plugin',
  '&category=databases',
  '&type=skill&category=developer-tools',
  '&sort=stars',
  '&type=workflow',
  '&category=productivity',
];

/**
 * Every query with every filter. `n=[<id>]` becomes a unique id per request (autocannon idReplacement): the
 * API ignores the parameter, but the URL is new, so the shim's response cache never answers.
 */
function semanticPaths(): string[] {
  return FILTERS.flatMap((filter) => SEMANTIC_QUERIES.map((q) => `/api/v1/listings?semantic=${encodeURIComponent(q)}${filter}&limit=20&n=[<id>]`));
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

async function loadRequests(origin: string, requests: Request[], seconds: number, connections: number): Promise<LoadFigures> {
  return loadFigures(await autocannon({ url: origin, connections, duration: seconds, requests, idReplacement: true }));
}

/** Concurrent connections of the load runs (the targets are at 32). */
const CONNECTIONS = 32;
const warmSeconds = (seconds: number) => Math.max(1, Math.round(seconds / 5));

/** Waits until the shim answers semantic queries from embeddings (the model loads after it listens). */
async function waitForSemantic(shim: Served): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${shim.origin}/api/v1/listings?semantic=postgres&limit=1&n=${Math.random()}`);
    await res.arrayBuffer();
    const mode = res.headers.get('search-mode');
    if (mode === 'hybrid') return performance.now() - started;
    if (performance.now() - started > 120_000) throw new Error(`semantic search never became ready (Search-Mode: ${mode})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Times the embeddings stage on a listings file: a cold cache (embed) and a warm one (reuse). */
async function stageCost(listingsPath: string): Promise<{ cold: number; warm: number; count: number; detail: string }> {
  const { buildEmbeddings } = await import('../build/stages/embeddings-stage.ts');
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-embeddings-'));
  try {
    const runtimeDir = join(dir, 'runtime');
    mkdirSync(runtimeDir);
    // The stage reads only name and description from each line, so an export stands in for runtime/listings.jsonl.
    symlinkSync(listingsPath, join(runtimeDir, 'listings.jsonl'));
    const cacheDir = join(dir, 'cache');
    let t = performance.now();
    const first = await buildEmbeddings({ runtimeDir, cacheDir });
    const cold = (performance.now() - t) / 1000;
    t = performance.now();
    await buildEmbeddings({ runtimeDir, cacheDir });
    const warm = (performance.now() - t) / 1000;
    const detail = Object.entries(first.timingsMs)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
      .join(', ');
    return { cold, warm, count: first.count, detail };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** More requests for the recall measurement: the load queries plus short keyword-like ones. */
const RECALL_QUERIES = [
  ...SEMANTIC_QUERIES,
  'postgres',
  'slack',
  'image generation',
  'kubernetes helm charts',
  'react components',
  'email',
  'weather forecast',
  'notion pages',
  'figma designs',
  'pdf',
  'browser automation testing',
  'stripe payments',
];

/** Distinct requests of three catalog words for the recall measurement, as the long-tail load sends them. */
const DISTINCT_RECALL_REQUESTS = 1000;

/** How many named requests open the recall measurement's list (RECALL_QUERIES). */
export const RECALL_QUERY_COUNT = RECALL_QUERIES.length;

/** The recall measurement's requests: RECALL_QUERIES, then DISTINCT_RECALL_REQUESTS of three catalog words each. */
export function recallRequests(listingsPath: string): string[] {
  const words = shuffle(catalogWords(listingsPath, 3 * DISTINCT_RECALL_REQUESTS));
  return [...RECALL_QUERIES, ...Array.from({ length: DISTINCT_RECALL_REQUESTS }, (_, i) => words.slice(3 * i, 3 * i + 3).join(' '))];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

/** In-process: exact top-k against the HNSW graph on the build's vectors (recall@10, latency). */
async function vectorSearchFigures(buildDir: string): Promise<Array<Record<string, string | number>>> {
  const { loadSnapshot } = await import('../server/catalog/snapshot.ts');
  const { SemanticIndex } = await import('../server/search-runtime/semantic-index.ts');
  const { SEMANTIC_CANDIDATES, vectorCandidates } = await import('../src/search/ranking/fusion.ts');
  const { EMBEDDINGS_DIR } = await import('../src/artifacts/embeddings.ts');
  const { readVectorSources } = await import('../src/search/vector-sources.ts');
  const { VECTORS_MANIFEST } = await import('../src/search/vectors.ts');
  const snapshot = loadSnapshot(buildDir);
  const semantic = new SemanticIndex();
  try {
    if ((await semantic.load(snapshot)) !== 'ready') throw new Error(`no embeddings in ${buildDir}`);
    // The shim searches in its vector worker; measured here in-process, the same function over the same files.
    const dir = join(buildDir, 'runtime', EMBEDDINGS_DIR);
    const { modelId } = JSON.parse(readFileSync(join(dir, VECTORS_MANIFEST), 'utf8')) as { modelId: string };
    const ready = await readVectorSources(dir, { modelId, count: snapshot.store.count });
    const embedder = semantic.ready(snapshot)!;
    const queries = await Promise.all(recallRequests(join(buildDir, 'runtime', 'listings.jsonl')).map(async (q) => (await embedder.embed(q))!));
    // Timed on RECALL_QUERIES (exact top-200 of every distinct request would take a minute); recall on all.
    const time = (run: (q: Float32Array) => unknown) => {
      const ms: number[] = [];
      for (let rep = 0; rep < 3; rep++) {
        for (const q of queries.slice(0, RECALL_QUERIES.length)) {
          const started = performance.now();
          run(q);
          ms.push(performance.now() - started);
        }
      }
      return ms;
    };
    const exactTop10 = ready.ann ? queries.map((q) => ready.vectors.search(q, 10).map((h) => h.index)) : [];
    const rows: Array<Record<string, string | number>> = [];
    for (const k of [10, SEMANTIC_CANDIDATES]) {
      const exactMs = time((q) => ready.vectors.search(q, k));
      const row: Record<string, string | number> = {
        search: `exact top-${k}`,
        rows: ready.vectors.count,
        'p50 ms': percentile(exactMs, 0.5).toFixed(2),
        'p99 ms': percentile(exactMs, 0.99).toFixed(2),
        'recall@10': '1.000',
      };
      rows.push(row);
      if (ready.ann) {
        const approximate = (q: Float32Array) => vectorCandidates(ready, q, undefined, k);
        const annMs = time(approximate);
        let found = 0;
        queries.forEach((q, i) => {
          const approx = new Set(approximate(q).slice(0, 10));
          found += exactTop10[i]!.filter((d) => approx.has(d)).length;
        });
        rows.push({
          search: `HNSW top-${k} (${ready.ann.rows} rows, ranked exactly)`,
          rows: ready.vectors.count,
          'p50 ms': percentile(annMs, 0.5).toFixed(2),
          'p99 ms': percentile(annMs, 0.99).toFixed(2),
          'recall@10': (found / (10 * queries.length)).toFixed(3),
        });
      }
    }
    return rows;
  } finally {
    await semantic.close();
    snapshot.store.close();
  }
}

export async function semanticSection(options: SemanticBenchOptions): Promise<void> {
  const { count, seconds } = options;
  const stageRows: Array<Record<string, string | number>> = [];
  for (const [label, path] of [
    ['embedded snapshot', join(ROOT, 'data/listings.jsonl')],
    [`generated ${count.toLocaleString('en')}`, await options.scaleExport(count)],
  ] as const) {
    const cost = await stageCost(path);
    stageRows.push({
      catalog: label,
      listings: cost.count,
      'cold cache s': cost.cold.toFixed(1),
      'cold steps s': cost.detail,
      'unchanged text s': cost.warm.toFixed(1),
    });
  }
  console.log('\n## embeddings stage (embed with a cold cache; reuse when the text is unchanged)\n');
  console.log(table(stageRows));

  const dataDir = await options.ensureBuilt(count);
  // A build without vectors, or with vectors of another model than the default encoder: rebuild it (no ingest).
  const vectorsPath = join(dataDir, 'current', 'runtime', 'embeddings', 'vectors.json');
  const { DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST } = await import('../src/embeddings/static-encoder.ts');
  const encoderId = (JSON.parse(readFileSync(join(DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST), 'utf8')) as { modelId: string }).modelId;
  if (!existsSync(vectorsPath) || (JSON.parse(readFileSync(vectorsPath, 'utf8')) as { modelId: string }).modelId !== encoderId) {
    const rebuilt = await timedBuild(dataDir, undefined);
    console.log(
      `\nrebuilt ${dataDir} with the embeddings stage: ${rebuilt.seconds.toFixed(1)} s (embeddings ${((rebuilt.stages.embeddings ?? 0) / 1000).toFixed(1)} s)`,
    );
  }
  const { realpathSync } = await import('node:fs');
  const vectorRows = await vectorSearchFigures(realpathSync(join(dataDir, 'current')));
  console.log(
    `\n## vector search at ${count.toLocaleString('en')} listings, in-process (timed on ${RECALL_QUERIES.length} queries × 3; recall@10 against exact on them and ${DISTINCT_RECALL_REQUESTS} requests of three catalog words, target ≥ 0.95)\n`,
  );
  console.log(table(vectorRows));
  const buildTimings = JSON.parse(readFileSync(join(dataDir, 'current', 'build.json'), 'utf8')) as { timings?: Record<string, number> };

  const shim = await serve('server/start.ts', { CATALOG_DATA_DIR: dataDir, CATALOG_BUILD_ON_START: 'false', RATE_LIMIT_MAX: '1000000000' });
  try {
    const semanticReadyMs = await waitForSemantic(shim);
    // The ceiling: a bare node:http server answering a body of the size of a semantic answer, in this run.
    const bodyBytes = (await (await fetch(`${shim.origin}${semanticPaths()[0]!.replace('[<id>]', 'probe')}`)).arrayBuffer()).byteLength;
    const bare = await serve('bench/bare-server.ts', { BODY_BYTES: String(bodyBytes) }, '/');
    let ceiling: LoadFigures;
    try {
      await loadRequests(bare.origin, [{ method: 'GET', path: '/' }], warmSeconds(seconds), CONNECTIONS);
      ceiling = await loadRequests(bare.origin, [{ method: 'GET', path: '/' }], seconds, CONNECTIONS);
    } finally {
      await bare.stop();
    }
    const semantic = semanticPaths().map((path): Request => ({ method: 'GET', path }));
    const keyword = options.searchPaths.map((path): Request => ({ method: 'GET', path: `${path}&n=[<id>]` }));
    const ask = SEMANTIC_QUERIES.map((q): Request => ({
      method: 'GET',
      path: `/ask?q=${encodeURIComponent(q)}&n=[<id>]`,
      headers: { accept: 'application/json' },
    }));
    const mcp = SEMANTIC_QUERIES.map((q, i): Request => ({
      method: 'POST',
      path: '/.well-known/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search_catalog', arguments: { query: q } } }),
    }));
    const rows: Array<Record<string, string | number>> = [
      {
        request: `bare node:http ceiling (${bodyBytes}-byte body)`,
        connections: CONNECTIONS,
        'req/s': ceiling.requestsPerSecond,
        'x ceiling': '1.00',
        'p50 ms': ceiling.p50,
        'p99 ms': ceiling.p99,
        errors: ceiling.errors + ceiling.non2xx,
      },
    ];
    await loadRequests(shim.origin, semantic, warmSeconds(seconds), 4);
    for (const [label, requests] of [
      ['listings: keyword q (uncached)', keyword],
      ['listings: semantic (hybrid)', semantic],
      ['/ask', ask],
      ['MCP tools/call search_catalog', mcp],
    ] as const) {
      const figures = await loadRequests(shim.origin, [...requests], seconds, CONNECTIONS);
      rows.push({
        request: label,
        connections: CONNECTIONS,
        'req/s': figures.requestsPerSecond,
        'x ceiling': (figures.requestsPerSecond / ceiling.requestsPerSecond).toFixed(3),
        'p50 ms': figures.p50,
        'p99 ms': figures.p99,
        errors: figures.errors + figures.non2xx,
      });
    }
    const { loadavg } = await import('node:os');
    console.log(
      `\n## semantic search at ${count.toLocaleString('en')} listings (${seconds} s per run; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})\n`,
    );
    console.log(table(rows));
    const semanticRow = rows.find((r) => r.request === 'listings: semantic (hybrid)')!;
    console.log(
      `\nsemantic at ${CONNECTIONS} connections: ${semanticRow['x ceiling']}x the ceiling (target >= 0.2), p99 ${semanticRow['p99 ms']} ms (target < 25 ms); /ask and MCP target >= 0.2x`,
    );
    console.log(`shim start (spawn → first answer): ${Math.round(shim.readyMs)} ms; semantic ready ${Math.round(semanticReadyMs)} ms later`);
    console.log(
      `embeddings stage in the ${count.toLocaleString('en')} build: ${(((buildTimings.timings ?? {}).embeddings ?? 0) / 1000).toFixed(1)} s; RSS after load ${shim.rssMB()} MB, peak ${shim.peakRssMB()} MB`,
    );
  } finally {
    await shim.stop();
  }
}
