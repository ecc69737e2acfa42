// The server half of `catalog serve <dir>`: the normal shim over one build, read-only (no search counters, no pid
// file). The CLI resolves the directory (building a mirror first when it must) and runs this entry with the build
// and data directories; SIGHUP switches a data directory to its newest build.
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from '../src/config.ts';
import { buildDirs } from '../src/artifacts/build-dirs.ts';
import { followBuilds } from './follow-builds.ts';
import { createApp, type App } from './app.ts';

/** The shim over a served directory, read-only: search counting is off whatever the environment says. */
export function createServeApp(config: Config, target: { buildDir: string; dataDir: string }, logger?: Logger): App {
  const readOnly: Config = { ...config, dataDir: target.dataDir, signals: { ...config.signals, enabled: false } };
  return createApp(readOnly, { buildDir: target.buildDir, ...(logger ? { logger } : {}) });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'build-dir': { type: 'string' },
      'data-dir': { type: 'string' },
      label: { type: 'string' },
      follow: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
    },
  });
  const buildDir = values['build-dir'];
  const dataDir = values['data-dir'];
  if (!buildDir || !dataDir) throw new ConfigError('usage: node server/serve.ts --build-dir <dir> --data-dir <dir> [--follow] [--port n] [--host h]');
  const overrides: Partial<Config> = {};
  if (values.port !== undefined) overrides.port = Number(values.port);
  if (values.host !== undefined) overrides.host = values.host;
  const app = createServeApp(loadConfig(process.env, overrides), { buildDir, dataDir });
  const address = await app.listen();
  console.log(`serving ${values.label ?? buildDir} (${app.services.catalog.current.store.count} listings) on http://${address.address}:${address.port}`);
  if (values.follow) followBuilds(app, buildDirs(dataDir));
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
