// `npm run bench -- serving`: what serving costs, as ratios within one run at BENCH_COUNT listings. The same
// requests (static files, a listing page, a listing by id, a batch of 25) through the shim alone, through the
// generated nginx front with the shim behind it, against a bare node:http server sending the same bytes and a
// plain nginx serving the same built files with the same settings; plus the shim's start to first answer and RSS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nginxAvailable, startNginxFront, type NginxFront } from '../server/front/nginx-process.ts';
import { freePort } from '../src/net/free-port.ts';
import { load, serve, table, wrkAvailable, wrkLoad, type LoadFigures } from './harness.ts';

interface Row {
  name: string;
  path: string;
  method?: 'POST';
  body?: string;
  /** A file of the build: plain nginx can serve it too. */
  file?: boolean;
}

async function startNginx(prefix: string, httpConf: string, serverConf: string, upstream: string): Promise<{ front: NginxFront; origin: string }> {
  const port = await freePort();
  const front = await startNginxFront({ prefix, listen: `127.0.0.1:${port}`, upstreams: [upstream], httpConf, serverConf, workerProcesses: 1 });
  return { front, origin: `http://127.0.0.1:${port}` };
}

export async function servingSection(dataDir: string, count: number, seconds: number): Promise<void> {
  const buildDir = join(dataDir, 'current');
  const shim = await serve('server/start.ts', {
    CATALOG_DATA_DIR: dataDir,
    CATALOG_BUILD_ON_START: 'false',
    RATE_LIMIT_MAX: '1000000000',
    SEARCH_SIGNALS: 'off',
    TRUST_PROXY: '1',
  });
  const work = mkdtempSync(join(tmpdir(), 'catalog-bench-serving-'));
  const stops: Array<() => Promise<unknown>> = [() => shim.stop()];
  try {
    const first = (await (await fetch(`${shim.origin}/api/v1/listings?limit=25`)).json()) as { items: Array<{ id: string; slug: string }> };
    const rows: Row[] = [
      { name: '/llms.txt', path: '/llms.txt', file: true },
      { name: '/openapi.json', path: '/openapi.json', file: true },
      { name: 'listing page', path: `/listings/${first.items[0]!.slug}/`, file: true },
      { name: 'listing by id', path: `/api/v1/listings/${first.items[1]!.slug}` },
      { name: 'batch of 25', path: '/api/v1/listings/batch', method: 'POST', body: JSON.stringify({ ids: first.items.map((item) => item.id) }) },
    ];

    let front: { front: NginxFront; origin: string } | undefined;
    let plain: { front: NginxFront; origin: string } | undefined;
    if (nginxAvailable()) {
      const upstream = new URL(shim.origin).host;
      front = await startNginx(join(work, 'front'), join(buildDir, 'front', 'http.conf'), join(buildDir, 'front', 'server.conf'), upstream);
      stops.push(() => front!.front.stop());
      const plainHttp = join(work, 'plain-http.conf');
      const plainServer = join(work, 'plain-server.conf');
      // The main configuration's 503 block sends the request id, build and Link variables; plain nginx sets none.
      writeFileSync(
        plainHttp,
        'include /etc/nginx/mime.types;\nmap $host $catalog_request_id { default ""; }\nmap $host $catalog_build { default ""; }\nmap $host $catalog_link { default ""; }\n',
      );
      // A listing's page is one file, listings/<slug>.html, at /listings/<slug>/ (docs/decisions/017-flat-page-files.md).
      writeFileSync(
        plainServer,
        `root ${join(buildDir, 'site')};\nlocation ~ ^(?<page>/.+)/$ { try_files $uri/index.html $page.html =404; }\nlocation / { try_files $uri $uri/index.html $uri.html =404; }\n`,
      );
      plain = await startNginx(join(work, 'plain'), plainHttp, plainServer, upstream);
      stops.push(() => plain!.front.stop());
    }

    // wrk when installed: a JavaScript client is itself the bottleneck on small answers (see wrkLoad).
    const withWrk = wrkAvailable();
    const measure = (origin: string, path: string, options: Parameters<typeof wrkLoad>[2]) =>
      withWrk ? wrkLoad(origin, path, options) : load(origin, [path], options);
    const results: Array<Record<string, string | number>> = [];
    const ratio = (a: LoadFigures, b: LoadFigures | undefined) =>
      b && b.requestsPerSecond ? `${(a.requestsPerSecond / b.requestsPerSecond).toFixed(2)}x` : '';
    for (const row of rows) {
      const init = row.method ? { method: row.method, headers: { 'content-type': 'application/json' }, body: row.body } : {};
      const answer = await fetch(shim.origin + row.path, init);
      const bytes = Buffer.from(await answer.arrayBuffer());
      const bodyFile = join(work, `body-${results.length}`);
      writeFileSync(bodyFile, bytes);
      const bare = await serve(
        'bench/bare-server.ts',
        { BODY_FILE: bodyFile, BODY_TYPE: answer.headers.get('content-type') ?? 'application/octet-stream' },
        '/',
      );
      try {
        const options = { seconds, ...(row.method ? { method: row.method, body: row.body, headers: { 'content-type': 'application/json' } } : {}) };
        await measure(shim.origin, row.path, { ...options, seconds: 1 });
        const viaShim = await measure(shim.origin, row.path, options);
        // The same request (a batch's POST and body too): the bare server reads it before answering.
        const viaBare = await measure(bare.origin, '/', options);
        const viaFront = front ? await measure(front.origin, row.path, options) : undefined;
        const viaPlain = plain && row.file ? await measure(plain.origin, row.path, { seconds }) : undefined;
        results.push({
          request: `${row.name} (${bytes.length} B)`,
          'shim req/s': viaShim.requestsPerSecond,
          'shim p99 ms': viaShim.p99,
          'bare req/s': viaBare.requestsPerSecond,
          'shim/bare': ratio(viaShim, viaBare),
          'front req/s': viaFront?.requestsPerSecond ?? '',
          'plain nginx req/s': viaPlain?.requestsPerSecond ?? '',
          'front/plain nginx': viaFront && viaPlain ? ratio(viaFront, viaPlain) : '',
          'front/shim': viaFront ? ratio(viaFront, viaShim) : '',
          errors: viaShim.errors + viaShim.non2xx + (viaFront ? viaFront.errors + viaFront.non2xx : 0),
        });
      } finally {
        await bare.stop();
      }
    }
    console.log(
      `\n## serving at ${count.toLocaleString('en')} listings (${seconds} s per run, 16 connections, ${withWrk ? 'wrk' : 'autocannon'}; nginx with 1 worker)\n`,
    );
    console.log(table(results));
    console.log(`\nshim: start to first answer ${Math.round(shim.readyMs)} ms; RSS after the runs ${shim.rssMB()} MB (peak ${shim.peakRssMB()} MB)`);
    if (!front) console.log('(nginx is not installed: no front or plain nginx rows)');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

/** For a quick look without the harness: node bench/serving.ts <data-dir> [seconds]. */
if (import.meta.main) {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: node bench/serving.ts <data-dir> [seconds]');
  await servingSection(
    dataDir,
    Number(JSON.parse(readFileSync(join(dataDir, 'current', 'runtime', 'manifest.json'), 'utf8')).count),
    Number(process.argv[3] ?? 5),
  );
}
