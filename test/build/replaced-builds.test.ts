// A build sets aside the build two before the one it serves as trash when it switches (src/artifacts/build-dirs.ts
// switchCurrent), and the next build removes that trash beside its first stages: never on the path of the switch.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDirs, currentBuild, INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { listBuilds } from '../../src/artifacts/build-dirs.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';

describe('replaced builds', () => {
  const dir = tempDir('catalog-replaced-builds-');
  const dataDir = join(dir, 'data');
  const dirs = buildDirs(dataDir);
  const exportPath = writeExport(join(dir, 'export'), sampleRecords(1));
  const build = (output?: { write(line: string): unknown; isTTY: boolean }) =>
    runBuild({ dataDir, exportPath, baseUrl: 'http://catalog.test', quiet: output === undefined, output, force: true, stages: [INDEX_STAGE] });
  const trash = () => readdirSync(dirs.buildsDir).filter((name) => name.startsWith('.'));

  it('keeps the served build and the one before it, and removes the older one in the next build', async () => {
    const first = await build();
    const second = await build();
    expect(trash()).toEqual([]);
    const third = await build();
    // The first was set aside in one rename at the switch, not removed then.
    expect(listBuilds(dirs)).toEqual([second.buildDir, third.buildDir]);
    expect(currentBuild(dirs)).toBe(third.buildDir);
    expect(existsSync(first.buildDir)).toBe(false);
    expect(trash()).toHaveLength(1);
    // A removal a crash cut short leaves trash too: the next build removes both.
    mkdirSync(join(dirs.buildsDir, '.trash-19990101T000000', 'site'), { recursive: true });
    writeFileSync(join(dirs.buildsDir, '.trash-19990101T000000', 'site', 'index.html'), 'old');
    const lines: string[] = [];
    const fourth = await build({ isTTY: false, write: (text: string) => lines.push(...text.trimEnd().split('\n')) });
    expect(listBuilds(dirs)).toEqual([third.buildDir, fourth.buildDir]);
    // Live once `current` moved; the removal, at the lowest priority, is said when the command waits for it and ends.
    expect(fourth.switchedMs).toBeGreaterThan(0);
    const switched = lines.findIndex((line) => line.endsWith(`switched: ${fourth.buildDir} is current after ${(fourth.switchedMs! / 1000).toFixed(1)} s`));
    const removed = lines.findIndex((line) => / removed 2 replaced builds at nice 19 in \d+\.\d s$/.test(line));
    expect(switched).toBeGreaterThan(-1);
    expect(removed).toBeGreaterThan(switched);
    expect(currentBuild(dirs)).toBe(fourth.buildDir);
    // The second's trash is the fourth's own: it is left for the build after it.
    expect(trash()).toEqual([`.trash-${second.buildDir.slice(dirs.buildsDir.length + 1)}`]);
  }, 120_000);
});
