// Child process of test/build/streaming-build.test.ts: runs the shards stage (the export, the change log, the shard
// pages and manifest) over a prepared build directory, under whatever V8 heap limit the parent started it with, and
// prints the stage's figures. Usage: node --max-old-space-size=<MiB> shards-stage-runner.ts <dataDir> <buildDir> <baseUrl>
import { join } from 'node:path';
import { buildDirs } from '../../src/artifacts/build-dirs.ts';
import { readRuntimeManifest } from '../../src/artifacts/runtime-manifest.ts';
import { SHARDS_STAGE } from '../../build/stages/shards-stage.ts';
import { openCatalogDb } from '../../build/sqlite-store.ts';
import { RuntimeWriter } from '../../build/runtime-writer.ts';
import { getHeapStatistics } from 'node:v8';

const [dataDir, buildDir, baseUrl] = process.argv.slice(2);
if (!dataDir || !buildDir || !baseUrl) throw new Error('usage: shards-stage-runner.ts <dataDir> <buildDir> <baseUrl>');
const dirs = buildDirs(dataDir);
const db = openCatalogDb(dirs.database);
try {
  await SHARDS_STAGE.run({
    dirs,
    buildDir,
    baseUrl,
    db,
    runtimeOut: new RuntimeWriter(join(buildDir, 'runtime')),
    runtime: readRuntimeManifest(join(buildDir, 'runtime')),
    searchTrend: new Map(),
    progress: () => undefined,
    log: () => undefined,
  });
} finally {
  db.close();
}
console.log(JSON.stringify({ heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20), maxRssKB: process.resourceUsage().maxRSS }));
