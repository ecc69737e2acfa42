// `node bench/keyword-build.ts DATA_DIR [EXPORT] [--log]`: a build of the index stage alone (listings, columns, keyword
// index; no site, shards or embeddings), which is all a keyword search needs. The long-tail rows use it for
// catalogs without a full build: at 1M listings it took 223 s (4.2 GB peak); at 100k it is a tenth of a full build.
// Without EXPORT it builds from the catalog DATA_DIR already holds (135 s at 1M): at once when the code and data are those of
// its current build, else the index stage again (a new index format needs it) without ingesting anew.
import { resolve } from 'node:path';
import { INDEX_STAGE, runBuild } from '../build/build-pipeline.ts';

// With --log the stage's lines go to stderr: each of its steps with its wall and CPU time.
const args = process.argv.slice(2);
const log = args.includes('--log');
const [dataDir, exportPath] = args.filter((arg) => arg !== '--log');
if (!dataDir) {
  console.error('usage: node bench/keyword-build.ts DATA_DIR [EXPORT] [--log]');
  process.exit(2);
}
const { buildDir } = await runBuild({
  dataDir: resolve(dataDir),
  ...(exportPath ? { exportPath: resolve(exportPath) } : {}),
  baseUrl: 'http://127.0.0.1',
  quiet: !log,
  stages: [INDEX_STAGE],
});
console.log(buildDir);
