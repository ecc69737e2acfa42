// Where builds live under the data directory, and the atomic switch between them:
//   <data>/catalog.db          the ingested snapshot
//   <data>/builds/<id>/        one complete build (runtime/ for the shim, site/ for static files); while it is made,
//                              runtime-ready says its runtime/ is complete, build.json that the whole build is
//   <data>/builds/.trash-*/    a replaced build being removed: never served, never a build (listBuilds leaves it out)
//   <data>/current             symlink to the build being served, replaced by rename(2) in one step
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

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

/**
 * Written into a build directory being made once its runtime/ is complete (the stages that write it are done), while
 * the other stages go on: a running shim may read the runtime then, ahead of the switch (preparableBuild).
 */
export const RUNTIME_READY_FILE = 'runtime-ready';
/** Written last into a build directory, just before `current` moves to it. */
export const BUILD_RECORD_FILE = 'build.json';

/**
 * The build being made whose runtime is complete, when it is newer than the one served: what a running rebuild will
 * switch to. Undefined when there is none (no build under way, its runtime not complete yet, or it ended already).
 */
export function preparableBuild(dirs: BuildDirs): string | undefined {
  const newest = listBuilds(dirs).at(-1);
  if (newest === undefined || newest === currentBuild(dirs)) return undefined;
  return existsSync(join(newest, RUNTIME_READY_FILE)) && !existsSync(join(newest, BUILD_RECORD_FILE)) ? newest : undefined;
}

/**
 * A build's name is the second it started (20261128T145259) and, for a build that started in the second of another
 * or before it (a clock set back), "-<n>" after the newest's time: its place among the builds, as compareBuildNames
 * orders them.
 */
function buildOrder(name: string): [stamp: string, n: number] {
  const dash = name.indexOf('-');
  return dash < 0 ? [name, 0] : [name.slice(0, dash), Number(name.slice(dash + 1)) || 0];
}

/** Builds by name, oldest first: by time, then by number (T-2 before T-10). */
function compareBuildNames(a: string, b: string): number {
  const [aStamp, aN] = buildOrder(a);
  const [bStamp, bN] = buildOrder(b);
  return aStamp < bStamp ? -1 : aStamp > bStamp ? 1 : aN - bN;
}

/**
 * A new build's folder, named to come after every build listed: a name freed by a removed build of the same second
 * is not taken again, or the newest build would look the oldest (switchCurrent would keep the wrong ones).
 */
export function newBuildDir(dirs: BuildDirs): string {
  mkdirSync(dirs.buildsDir, { recursive: true });
  let stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  let n = 0;
  const newest = listBuilds(dirs).at(-1);
  if (newest !== undefined) {
    const [newestStamp, newestN] = buildOrder(newest.slice(dirs.buildsDir.length + 1));
    if (newestStamp >= stamp) [stamp, n] = [newestStamp, newestN + 1];
  }
  const named = () => join(dirs.buildsDir, n === 0 ? stamp : `${stamp}-${n}`);
  let dir = named();
  while (existsSync(dir)) {
    n++;
    dir = named();
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The prefix of a replaced build's name while it is removed; a build's own name is a time stamp, never this. */
const TRASH_PREFIX = '.trash-';

/** The builds under builds/, oldest first, without the replaced ones being removed (trash). */
export function listBuilds(dirs: BuildDirs): string[] {
  if (!existsSync(dirs.buildsDir)) return [];
  return readdirSync(dirs.buildsDir)
    .filter((name) => !name.startsWith(TRASH_PREFIX))
    .sort(compareBuildNames)
    .map((name) => join(dirs.buildsDir, name));
}

/**
 * Points `current` at the build in one rename, then sets aside the builds older than the newest `keep` (the served
 * one and, by default, the one before it for a rollback): each is renamed to a trash name in one step, and removed
 * later by removeTrash. Removing a large build's files takes many seconds; a rename does not, so the build that
 * switched is done when `current` has switched. Returns the trash directories it made.
 */
export function switchCurrent(dirs: BuildDirs, buildDir: string, keep = 2): string[] {
  const temp = `${dirs.currentLink}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  symlinkSync(join('builds', buildDir.slice(dirs.buildsDir.length + 1)), temp);
  renameSync(temp, dirs.currentLink);
  const serving = resolve(buildDir);
  const builds = listBuilds(dirs);
  const trash: string[] = [];
  for (const dir of builds.slice(0, Math.max(0, builds.length - keep))) {
    if (dir === serving) continue;
    const name = dir.slice(dirs.buildsDir.length + 1);
    let target = join(dirs.buildsDir, `${TRASH_PREFIX}${name}`);
    for (let n = 1; existsSync(target); n++) target = join(dirs.buildsDir, `${TRASH_PREFIX}${name}-${n}`);
    renameSync(dir, target);
    trash.push(target);
  }
  return trash;
}

/**
 * The niceness the removal of replaced builds runs at: removing a build's hundreds of thousands of files is mostly the
 * kernel's work, and at the default priority it took a core from the stages beside it. At 19 it gets the cores only
 * when the build leaves them idle.
 */
export const TRASH_NICENESS = 19;

/** Lowers its own priority, says the niceness it got, then removes the directories it is given (its argv). */
const REMOVER = `const os = require('node:os');
try { os.setPriority(${TRASH_NICENESS}); } catch {}
process.stdout.write(String(os.getPriority()));
for (const dir of process.argv.slice(1)) require('node:fs').rmSync(dir, { recursive: true, force: true });`;

export interface TrashRemoval {
  /** Replaced builds removed. */
  count: number;
  /** The niceness the removing process ran at (TRASH_NICENESS where the system allows it), undefined when none ran. */
  niceness: number | undefined;
}

/**
 * Removes every replaced build left under builds/ (by switchCurrent, or by a removal a crash cut short) in a child
 * process at a low priority (TRASH_NICENESS), so that the caller goes on with its own work meanwhile: a build starts it
 * beside its first stages. Resolves once they are gone; rejects when one cannot be removed.
 */
export async function removeTrash(dirs: BuildDirs): Promise<TrashRemoval> {
  if (!existsSync(dirs.buildsDir)) return { count: 0, niceness: undefined };
  const trash = readdirSync(dirs.buildsDir)
    .filter((name) => name.startsWith(TRASH_PREFIX))
    .map((name) => join(dirs.buildsDir, name));
  if (trash.length === 0) return { count: 0, niceness: undefined };
  // A process rather than a thread: a priority is set per process (and is not raised again by this one).
  const child = spawn(process.execPath, ['-e', REMOVER, ...trash], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    throw new Error(`removing replaced builds ${trash.join(', ')} ended with ${signal ?? `code ${code}`}${stderr ? `: ${stderr.trim().slice(-2000)}` : ''}`);
  }
  const niceness = Number.parseInt(stdout, 10);
  return { count: trash.length, niceness: Number.isNaN(niceness) ? undefined : niceness };
}
