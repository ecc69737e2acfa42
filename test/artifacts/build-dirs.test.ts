// The switch of `current` keeps the served build and the one before it; older builds are set aside as trash in one
// rename each and removed later, off the build's path. Trash is never served, never a build and never kept.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildDirs,
  currentBuild,
  listBuilds,
  newBuildDir,
  removeTrash,
  switchCurrent,
  TRASH_NICENESS,
  type BuildDirs,
} from '../../src/artifacts/build-dirs.ts';

const temps: string[] = [];

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): BuildDirs {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-build-dirs-'));
  temps.push(dir);
  return buildDirs(dir);
}

/** A build directory with a manifest (what currentBuild looks for) and some pages. */
function build(dirs: BuildDirs, name: string): string {
  const dir = join(dirs.buildsDir, name);
  mkdirSync(join(dir, 'runtime'), { recursive: true });
  writeFileSync(join(dir, 'runtime', 'manifest.json'), '{}');
  for (let i = 0; i < 20; i++) {
    mkdirSync(join(dir, 'site', 'listings', `l${i}`), { recursive: true });
    writeFileSync(join(dir, 'site', 'listings', `l${i}`, 'index.html'), `<p>${i}</p>`);
  }
  return dir;
}

const trashOf = (dirs: BuildDirs) => readdirSync(dirs.buildsDir).filter((name) => !listBuilds(dirs).includes(join(dirs.buildsDir, name)));

describe('newBuildDir', () => {
  it('names a build after every build listed, never with a name a removed build of the same second freed', () => {
    const dirs = dataDir();
    // Builds of one second (a later one than now, so that the clock cannot pass it during the test): the first was
    // switched away and removed, which freed its name.
    const second = build(dirs, '29991231T235959-1');
    const third = build(dirs, '29991231T235959-2');
    const fourth = newBuildDir(dirs);
    expect(fourth).toBe(join(dirs.buildsDir, '29991231T235959-3'));
    expect(listBuilds(dirs)).toEqual([second, third, fourth]);
    // The fourth is served: the one set aside is the oldest, not the newest.
    switchCurrent(dirs, fourth);
    expect(listBuilds(dirs)).toEqual([third, fourth]);
  });

  it("orders a second's builds by their number, the tenth after the ninth", () => {
    const dirs = dataDir();
    const names = ['29991231T235959', '29991231T235959-9', '29991231T235959-10'];
    for (const name of [...names].reverse()) build(dirs, name);
    expect(listBuilds(dirs)).toEqual(names.map((name) => join(dirs.buildsDir, name)));
    expect(newBuildDir(dirs)).toBe(join(dirs.buildsDir, '29991231T235959-11'));
  });

  it('names a build by the second it started when no build is as recent', () => {
    const dirs = dataDir();
    build(dirs, '20260101T000000-4');
    const name = newBuildDir(dirs).slice(dirs.buildsDir.length + 1);
    expect(name).toMatch(/^\d{8}T\d{6}$/);
    expect(name > '20260101T000000').toBe(true);
  });
});

describe('switchCurrent and the removal of replaced builds', () => {
  it('keeps the served build and the one before it, and sets the older ones aside as trash at once', async () => {
    const dirs = dataDir();
    const a = build(dirs, '20260101T000000');
    expect(switchCurrent(dirs, a)).toEqual([]);
    const b = build(dirs, '20260102T000000');
    expect(switchCurrent(dirs, b)).toEqual([]);
    const c = build(dirs, '20260103T000000');
    const trash = switchCurrent(dirs, c);
    expect(currentBuild(dirs)).toBe(c);
    expect(readlinkSync(dirs.currentLink)).toBe(join('builds', '20260103T000000'));
    expect(listBuilds(dirs)).toEqual([b, c]);
    // The oldest is no longer a build, but its files are still there until removeTrash.
    expect(trash).toHaveLength(1);
    expect(existsSync(join(trash[0]!, 'site', 'listings', 'l0', 'index.html'))).toBe(true);
    expect(existsSync(a)).toBe(false);

    // Removed by a process that lowered its own priority first, so that it takes only what the build leaves idle.
    expect(await removeTrash(dirs)).toEqual({ count: 1, niceness: TRASH_NICENESS });
    expect(readdirSync(dirs.buildsDir).sort()).toEqual(['20260102T000000', '20260103T000000']);
    expect(await removeTrash(dirs)).toEqual({ count: 0, niceness: undefined });
  });

  it('never serves, keeps or counts trash, and a later removal ends one a crash cut short', async () => {
    const dirs = dataDir();
    const a = build(dirs, '20260101T000000');
    switchCurrent(dirs, a);
    // What a removal cut short leaves: a trash folder with some files still in it, of any name order.
    mkdirSync(join(dirs.buildsDir, '.trash-20251231T000000', 'site', 'listings', 'x'), { recursive: true });
    writeFileSync(join(dirs.buildsDir, '.trash-20251231T000000', 'site', 'listings', 'x', 'index.html'), 'x');
    mkdirSync(join(dirs.buildsDir, '.trash-20991231T000000', 'runtime'), { recursive: true });
    writeFileSync(join(dirs.buildsDir, '.trash-20991231T000000', 'runtime', 'manifest.json'), '{}');
    expect(listBuilds(dirs)).toEqual([a]);

    const b = newBuildDir(dirs);
    expect(b.startsWith(join(dirs.buildsDir, '2'))).toBe(true);
    build(dirs, b.slice(dirs.buildsDir.length + 1));
    // keep = 2 counts a and b only: the trash folders do not push a out.
    expect(switchCurrent(dirs, b)).toEqual([]);
    expect(listBuilds(dirs)).toEqual([a, b]);
    expect(currentBuild(dirs)).toBe(b);
    expect(trashOf(dirs).sort()).toEqual(['.trash-20251231T000000', '.trash-20991231T000000']);

    expect((await removeTrash(dirs)).count).toBe(2);
    expect(trashOf(dirs)).toEqual([]);
    expect(listBuilds(dirs)).toEqual([a, b]);
  });

  it('gives a build set aside twice under one name a trash name of its own', () => {
    const dirs = dataDir();
    mkdirSync(join(dirs.buildsDir, '.trash-20260101T000000'), { recursive: true });
    switchCurrent(dirs, build(dirs, '20260101T000000'));
    switchCurrent(dirs, build(dirs, '20260102T000000'));
    expect(switchCurrent(dirs, build(dirs, '20260103T000000'))).toEqual([join(dirs.buildsDir, '.trash-20260101T000000-1')]);
  });
});
