// A fresh checkout has no build: its first start builds the configured snapshot by running the build's CLI in a
// child process with this process's environment (the shim never imports the build; they share only src/). A build
// an older checkout left in another format is built again the same way.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError, type Config } from '../src/config.ts';
import { buildDirs, currentBuild } from '../src/artifacts/build-dirs.ts';
import { isCurrentRuntime } from '../src/artifacts/runtime-manifest.ts';

const BUILD_CLI = resolve(import.meta.dirname, '..', 'build', 'cli.ts');

/** The build to serve: the data directory's current one, or a first build made now when allowed. */
export async function currentOrFirstBuild(config: Config): Promise<string> {
  const dirs = buildDirs(config.dataDir);
  const current = currentBuild(dirs);
  // Without a build on start, a build in another format is left to loading, which names the fix.
  if (current && (!config.buildOnStart || isCurrentRuntime(current))) return current;
  if (!config.buildOnStart) throw new ConfigError(`No build in ${config.dataDir}; run npm run build first.`);
  console.log(
    current
      ? `The build in ${config.dataDir} is in an older format: building again from ${config.exportPath}.`
      : `No build in ${config.dataDir}: building from ${config.exportPath} (first start only).`,
  );
  const env = { ...process.env, CATALOG_DATA_DIR: config.dataDir, CATALOG_EXPORT: config.exportPath, PUBLIC_BASE_URL: config.baseUrl };
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [BUILD_CLI, 'build'], { env, stdio: 'inherit' });
    child.once('error', fail);
    child.once('exit', done);
  });
  const built = currentBuild(dirs);
  if (code !== 0 || !built) throw new Error(`the build on start failed (exit code ${code}); see its output above`);
  return built;
}
