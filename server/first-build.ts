// A fresh checkout has no build: its first start builds the configured snapshot by running the build's CLI in a
// child process with this process's environment (the shim never imports the build; they share only src/). A build
// an older checkout left in another format is built again the same way.
//
// The child says over its IPC channel when the build's runtime/ is complete (src/artifacts/build-messages.ts): the
// shim serves the API and search from then on, while the site stage renders the pages; then when every page is in
// the build: the shim serves them too, while the build writes the rest (compressed copies, shards, discovery files).
// Its stage lines come through a pipe, a plain line each: progress bars would be drawn over by the shim's own lines
// in a terminal.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError, type Config } from '../src/config.ts';
import { buildDirs, currentBuild } from '../src/artifacts/build-dirs.ts';
import { isCurrentRuntime } from '../src/artifacts/runtime-manifest.ts';
import { isPagesReadyMessage, isRuntimeReadyMessage, type PagesReadyMessage } from '../src/artifacts/build-messages.ts';

const BUILD_CLI = resolve(import.meta.dirname, '..', 'build', 'cli.ts');

export interface StartBuild {
  /** The build directory to serve now: its runtime is complete. */
  buildDir: string;
  /** While the first build still runs: settles with the finished build (the same directory), or fails. */
  finished?: Promise<string> | undefined;
  /**
   * While the first build's site stage still renders: settles when every page is in the build (the names at the top
   * of its site/ that are complete); never, if the build ends without saying so (`finished` says when it ends).
   */
  pagesReady?: Promise<Pick<PagesReadyMessage, 'buildDir' | 'entries'>> | undefined;
}

/** The build to serve: the data directory's current one, or a first build made now when allowed. */
export async function currentOrFirstBuild(config: Config): Promise<StartBuild> {
  const dirs = buildDirs(config.dataDir);
  const current = currentBuild(dirs);
  // Without a build on start, a build in another format is left to loading, which names the fix.
  if (current && (!config.buildOnStart || isCurrentRuntime(current))) return { buildDir: current };
  if (!config.buildOnStart) throw new ConfigError(`No build in ${config.dataDir}; run npm run build first.`);
  console.log(
    current
      ? `The build in ${config.dataDir} is in an older format: building again from ${config.exportPath}.`
      : `No build in ${config.dataDir}: building from ${config.exportPath} (first start only; the API answers once the index is made, the pages when the site is rendered).`,
  );
  const env = { ...process.env, CATALOG_DATA_DIR: config.dataDir, CATALOG_EXPORT: config.exportPath, PUBLIC_BASE_URL: config.baseUrl };
  const child = spawn(process.execPath, [BUILD_CLI, 'build'], { env, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`${line}\n`));
  const finished = new Promise<string>((done, fail) => {
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      const built = currentBuild(dirs);
      if (code === 0 && built) done(built);
      else fail(new Error(`the build on start failed (${signal ? `signal ${signal}` : `exit code ${code}`}); see its output above`));
    });
  });
  // The shim ends with the build if it is stopped while building.
  const stopChild = () => child.kill('SIGTERM');
  process.once('exit', stopChild);
  void finished.then(
    () => process.off('exit', stopChild),
    () => undefined,
  );
  const ready = new Promise<string>((done) => {
    child.on('message', (message) => {
      if (isRuntimeReadyMessage(message)) done(message.buildDir);
    });
  });
  const pagesReady = new Promise<Pick<PagesReadyMessage, 'buildDir' | 'entries'>>((done) => {
    child.on('message', (message) => {
      if (!isPagesReadyMessage(message)) return;
      done({ buildDir: message.buildDir, entries: message.entries });
      // Nothing more comes over the channel; without it open, the child's exit is all that is awaited.
      if (child.connected) child.disconnect();
    });
  });
  const first = await Promise.race([ready.then((buildDir) => ({ buildDir, early: true })), finished.then((buildDir) => ({ buildDir, early: false }))]);
  if (!first.early) return { buildDir: first.buildDir };
  return { buildDir: first.buildDir, finished, pagesReady };
}
