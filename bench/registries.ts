// `npm run bench -- registries`: the registry surfaces (official MCP registry API, ARD, Agent Skills index) against
// the catalog API answering the same question, in one run, so the ratios say what the mapping costs; and the
// one-off cost of the tables they build on first use (per snapshot).
import { load, serve, table } from './harness.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TEXTS = ['let my agent query a postgres database', 'generate pdf documents', 'browser automation', 'send slack messages', 'kubernetes deployment'];

async function timed(origin: string, path: string, init?: RequestInit): Promise<number> {
  const start = performance.now();
  const res = await fetch(origin + path, init);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return Math.round(performance.now() - start);
}

export async function registriesSection(dataDir: string): Promise<void> {
  const shim = await serve('server/start.ts', {
    CATALOG_DATA_DIR: dataDir,
    CATALOG_BUILD_ON_START: 'false',
    RATE_LIMIT_MAX: '1000000000',
    SEARCH_SIGNALS: 'off',
  });
  try {
    const post = (text: string) => ({
      method: 'POST',
      body: JSON.stringify({ query: { text }, pageSize: 10 }),
      headers: { 'content-type': 'application/json' },
    });
    const firstUse = {
      'first /v0.1/servers?updated_since (MCP table)': await timed(shim.origin, '/v0.1/servers?updated_since=2026-01-01T00:00:00Z&limit=30'),
      'first /ard/explore capabilities (facts table)': await timed(shim.origin, '/ard/explore', {
        ...post('x'),
        body: JSON.stringify({ resultType: { facets: [{ field: 'capabilities' }] } }),
      }),
      'first /.well-known/agent-skills/index.json (skill digests)': await timed(shim.origin, '/.well-known/agent-skills/index.json'),
    };
    console.log(table(Object.entries(firstUse).map(([what, ms]) => ({ what, ms }))));
    // Let the embeddings load before the semantic pairs.
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${shim.origin}/api/v1/listings?semantic=postgres&limit=1`);
      await res.arrayBuffer();
      if (res.headers.get('search-mode') !== 'keyword-fallback') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const rows: Array<Record<string, string | number>> = [];
    const pair = async (
      label: string,
      ours: () => Promise<{ requestsPerSecond: number; p50: number; p99: number; non2xx: number }>,
      baseline: () => Promise<{ requestsPerSecond: number; p50: number; p99: number; non2xx: number }>,
    ) => {
      const a = await ours();
      const b = await baseline();
      rows.push({
        pair: label,
        'rps new': a.requestsPerSecond,
        'rps api': b.requestsPerSecond,
        ratio: (a.requestsPerSecond / b.requestsPerSecond).toFixed(2),
        'p50 new': a.p50,
        'p50 api': b.p50,
        non2xx: a.non2xx + b.non2xx,
      });
    };
    await pair(
      '/v0.1/servers vs /api/v1/listings?type=mcp&sort=stars',
      () => load(shim.origin, ['/v0.1/servers?limit=30'], { seconds: SECONDS }),
      () => load(shim.origin, ['/api/v1/listings?type=mcp&sort=stars&limit=30'], { seconds: SECONDS }),
    );
    await pair(
      '/v0.1/servers?search vs /api/v1/listings?q&type=mcp',
      () =>
        load(
          shim.origin,
          ['postgres', 'github', 'slack', 'browser'].map((q) => `/v0.1/servers?limit=30&search=${q}`),
          { seconds: SECONDS },
        ),
      () =>
        load(
          shim.origin,
          ['postgres', 'github', 'slack', 'browser'].map((q) => `/api/v1/listings?q=${q}&type=mcp&limit=30`),
          { seconds: SECONDS },
        ),
    );
    // One text per run: autocannon sends one body per run, so the semantic baseline uses the same single text.
    await pair(
      'POST /ard/search vs /api/v1/listings?semantic',
      () => load(shim.origin, ['/ard/search'], { seconds: SECONDS, ...post(TEXTS[0]!) }),
      () => load(shim.origin, [`/api/v1/listings?semantic=${encodeURIComponent(TEXTS[0]!)}&limit=10`], { seconds: SECONDS }),
    );
    await pair(
      '/.well-known/agent-skills/index.json vs /.well-known/ai-catalog.json',
      () => load(shim.origin, ['/.well-known/agent-skills/index.json'], { seconds: SECONDS }),
      () => load(shim.origin, ['/.well-known/ai-catalog.json'], { seconds: SECONDS }),
    );
    console.log(table(rows));
  } finally {
    await shim.stop();
  }
}
