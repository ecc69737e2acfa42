// The shim started by `npm start` (through server/start.ts): build from the embedded snapshot when no build exists
// yet, then serve site and API.
import './heap-tuning.ts';
import { loadConfig } from '../src/config.ts';
import { createApp } from './app.ts';
import { buildDirs } from '../src/artifacts/build-dirs.ts';
import { followBuilds } from './follow-builds.ts';
import { pidFilePath, writePidFile } from '../src/artifacts/pid-file.ts';
import { currentOrFirstBuild } from './first-build.ts';
import { servingLine, startErrorMessage } from './start-errors.ts';

let config: ReturnType<typeof loadConfig> | undefined;

async function main(): Promise<void> {
  config = loadConfig();
  const dirs = buildDirs(config.dataDir);
  const { buildDir, finished, pagesReady } = await currentOrFirstBuild(config);
  const started = performance.now();
  const app = createApp(config, { buildDir, siteBuilding: finished !== undefined });
  // Handled before the pid file exists: `catalog rebuild` signals the pid it names.
  followBuilds(app, dirs);
  const address = await app.listen();
  // The daily rebuild (`catalog rebuild`) finds the shim to signal here; written before the ready line.
  const removePidFile = writePidFile(pidFilePath(config.dataDir));
  process.on('exit', removePidFile);
  app.services.logger.info(
    {
      url: `http://${address.address}:${address.port}`,
      baseUrl: config.baseUrl,
      listings: app.services.catalog.current.store.count,
      startMs: Math.round(performance.now() - started),
    },
    'catalog is serving',
  );
  // One plain line for the person who ran `npm start`, whatever the log format: where to open the site.
  console.log(servingLine(config, address));
  if (finished) {
    console.log('The API and search answer now; the pages answer 503 ("being built") until they are rendered.');
    void pagesReady?.then(({ buildDir: pagesDir, entries }) => {
      app.pagesReady(pagesDir, entries);
      console.log(
        `The pages answer now on ${config!.baseUrl}; the build goes on: shards, llms.txt, sitemaps, OpenAPI and the other generated files answer 503 ("still being written") until it ends.`,
      );
    });
    finished.then(
      (built) => {
        app.siteBuilt(built);
        console.log(`The site is built: every page and file answers on ${config!.baseUrl}`);
      },
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  }
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(config ? startErrorMessage(error, config) : error instanceof Error ? error.message : error);
  process.exit(1);
});
