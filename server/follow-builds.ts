// How a shim over a data directory follows its rebuilds: SIGHUP switches to the build `current` names (the daily
// rebuild sends it after `catalog build`), and a poll reads a rebuild's runtime once it is complete, while its other
// stages run, so that the SIGHUP switches without reading it then (App.prepare). `npm start` and
// `catalog serve <data dir>` follow the same way.
import { currentBuild, preparableBuild, type BuildDirs } from '../src/artifacts/build-dirs.ts';
import type { App } from './app.ts';

/** How often the shim looks for a rebuild's complete runtime: a listing of builds/ and two stats. */
const PREPARE_POLL_MS = 1000;

/** Installs the SIGHUP handler (SIGHUP's default action would end the process) and the poll, which keeps no process alive. */
export function followBuilds(app: Pick<App, 'reload' | 'prepare' | 'services'>, dirs: BuildDirs): void {
  process.on('SIGHUP', () => {
    const next = currentBuild(dirs);
    if (!next || next === app.services.catalog.current.buildDir) return;
    try {
      app.reload(next);
    } catch (error) {
      app.services.logger.error({ err: error, buildDir: next }, 'the newest build could not be loaded; the previous one keeps serving');
    }
  });
  setInterval(() => app.prepare(preparableBuild(dirs)), PREPARE_POLL_MS).unref();
}
