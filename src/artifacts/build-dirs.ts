// Where builds live under the data directory, and the atomic switch between them:
//   <data>/catalog.db          the ingested snapshot
//   <data>/builds/<id>/        one complete build (runtime/ for the shim, site/ for static files)
//   <data>/current             symlink to the build being served, replaced by rename(2) in one step
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface BuildDirs {
  dataDir: string;
  database: string;
  buildsDir: string;
  currentLink: string;
}

export function buildDirs(dataDir: string): BuildDirs {
  const root = resolve(dataDir);
  return { dataDir: root, database: join(root, 'catalog.db'), buildsDir: join(root, 'builds'), currentLink: join(root, 'current') };
}

/** The build directory being served, or undefined when there is none yet. */
export function currentBuild(dirs: BuildDirs): string | undefined {
  if (!existsSync(dirs.currentLink)) return undefined;
  const target = readlinkSync(dirs.currentLink);
  const full = resolve(dirs.dataDir, target);
  return existsSync(join(full, 'runtime', 'manifest.json')) ? full : undefined;
}

export function newBuildDir(dirs: BuildDirs): string {
  mkdirSync(dirs.buildsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  let dir = join(dirs.buildsDir, stamp);
  for (let n = 1; existsSync(dir); n++) dir = join(dirs.buildsDir, `${stamp}-${n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Points `current` at the build in one rename, then removes builds older than the newest `keep`. */
export function switchCurrent(dirs: BuildDirs, buildDir: string, keep = 2): void {
  const temp = `${dirs.currentLink}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  symlinkSync(join('builds', buildDir.slice(dirs.buildsDir.length + 1)), temp);
  renameSync(temp, dirs.currentLink);
  const serving = resolve(buildDir);
  const builds = readdirSync(dirs.buildsDir).sort();
  for (const name of builds.slice(0, Math.max(0, builds.length - keep))) {
    const dir = join(dirs.buildsDir, name);
    if (dir !== serving) rmSync(dir, { recursive: true, force: true });
  }
}
