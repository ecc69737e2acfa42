// How the build runs its stages after the index: each once the stages it reads are done (Stage.after), side by side
// with the others up to the stage concurrency and the memory the estimates allow, one after the other with a
// concurrency of 1; a failed stage fails the build once the stages beside it have ended, and the build directory is
// removed. Real builds of a small catalog with stages that record what they saw.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BuildStageError, defaultStages, INDEX_STAGE, runBuild, runStages, stageConcurrency, type Stage } from '../../build/build-pipeline.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';
import { TEST_BASE_URL } from '../support/test-base-url.ts';

function catalog() {
  const dir = tempDir('catalog-stage-order-');
  return { dataDir: join(dir, 'data'), exportPath: writeExport(join(dir, 'export'), sampleRecords(2)) };
}

/** Stages that note when they start and end, each taking `ms`. */
function recorder() {
  const events: string[] = [];
  let running = 0;
  let most = 0;
  const stage = (name: string, ms: number, extra: Partial<Stage> = {}): Stage => ({
    name,
    after: ['index'],
    ...extra,
    async run(ctx) {
      events.push(`${name}:start`);
      most = Math.max(most, ++running);
      for (let step = 0; step < 4; step++) {
        ctx.progress(step, 4, `${name} steps`);
        await sleep(ms / 4);
      }
      running--;
      events.push(`${name}:end`);
    },
  });
  return { events, stage, most: () => most };
}

function logFile() {
  const lines: string[] = [];
  return {
    lines,
    output: {
      isTTY: false,
      write: (text: string) =>
        lines.push(
          ...text
            .trimEnd()
            .split('\n')
            .map((line) => line.slice(9)),
        ),
    },
  };
}

describe('stages side by side', () => {
  it('runs the stages that do not wait for each other at once, and a stage after those it waits for', async () => {
    const { events, stage, most } = recorder();
    const { lines, output } = logFile();
    const result = await runBuild({
      ...catalog(),
      baseUrl: TEST_BASE_URL,
      output,
      progressEveryMs: 40,
      stageConcurrency: 3,
      stages: [INDEX_STAGE, stage('a', 240), stage('b', 240), stage('c', 240), stage('last', 40, { after: ['a', 'b', 'c'] })],
    });
    expect(most()).toBe(3);
    expect(events.slice(0, 3).sort()).toEqual(['a:start', 'b:start', 'c:start']);
    expect(events.slice(-2)).toEqual(['last:start', 'last:end']);
    // Each stage's own lines: its start, its progress, its end, whatever runs beside it.
    for (const name of ['a', 'b', 'c']) {
      expect(lines).toContain(`${name}: started`);
      expect(lines.some((line) => new RegExp(`^${name}: \\d/4 ${name} steps \\(\\d+ %\\)`).test(line))).toBe(true);
      expect(lines.some((line) => line.startsWith(`${name}: done in`))).toBe(true);
    }
    // The CPU of stages that ran side by side is the group's; a stage alone has its own.
    expect(Object.keys(result.cpu).sort()).toEqual(['a+b+c', 'index', 'ingest', 'last']);
    expect(Object.keys(result.timings).sort()).toEqual(['a', 'b', 'c', 'index', 'ingest', 'last']);
  });

  it('on a first start, runs the stages one after the other, the runtime first, so the API and then the pages answer first', async () => {
    const { events, stage } = recorder();
    const runtimeReady: string[] = [];
    const stages = [INDEX_STAGE, stage('vectors', 120, { runtime: true }), stage('pages', 120), stage('files', 120)];
    await runBuild({
      ...catalog(),
      baseUrl: TEST_BASE_URL,
      quiet: true,
      stageConcurrency: 3,
      stages,
      onRuntimeReady: () => runtimeReady.push(events.join(' ')),
    });
    expect(events).toEqual(['vectors:start', 'vectors:end', 'pages:start', 'pages:end', 'files:start', 'files:end']);
    expect(runtimeReady).toEqual(['vectors:start vectors:end']);
    // With a build being served, the same stages start side by side.
    const again = recorder();
    const dataDir = tempDir('catalog-stage-order-');
    const exportPath = writeExport(join(dataDir, 'export'), sampleRecords(2));
    await runBuild({ dataDir: join(dataDir, 'data'), exportPath, baseUrl: TEST_BASE_URL, quiet: true, stageConcurrency: 3, stages: [INDEX_STAGE] });
    await runBuild({
      dataDir: join(dataDir, 'data'),
      exportPath,
      baseUrl: TEST_BASE_URL,
      quiet: true,
      force: true,
      stageConcurrency: 3,
      stages: [INDEX_STAGE, again.stage('vectors', 120, { runtime: true }), again.stage('pages', 120), again.stage('files', 120)],
      onRuntimeReady: () => undefined,
    });
    expect(again.events.slice(0, 3).sort()).toEqual(['files:start', 'pages:start', 'vectors:start']);
  });

  it('runs them one after the other, in the list order, with a concurrency of 1', async () => {
    const { events, stage, most } = recorder();
    await runBuild({
      ...catalog(),
      baseUrl: TEST_BASE_URL,
      quiet: true,
      stageConcurrency: 1,
      stages: [INDEX_STAGE, stage('a', 40), stage('b', 40), stage('c', 40)],
    });
    expect(most()).toBe(1);
    expect(events).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  });

  it('starts a stage beside others only while their memory estimates fit', async () => {
    const { events, stage, most } = recorder();
    const gib = 2 ** 30;
    await runBuild({
      ...catalog(),
      baseUrl: TEST_BASE_URL,
      quiet: true,
      stageConcurrency: 4,
      stageMemoryBytes: 3 * gib,
      stages: [
        INDEX_STAGE,
        stage('big', 200, { memoryBytes: () => 2 * gib }),
        stage('large', 40, { memoryBytes: () => 2 * gib }),
        stage('small', 40, { memoryBytes: () => gib / 2 }),
      ],
    });
    expect(most()).toBe(2);
    // "large" does not fit beside "big"; "small" does, and starts before it.
    expect(events.indexOf('small:start')).toBeLessThan(events.indexOf('big:end'));
    expect(events.indexOf('large:start')).toBeGreaterThan(events.indexOf('big:end'));
  });

  it('fails the build when a stage fails, once the stages beside it have ended, and removes the build directory', async () => {
    const { events, stage } = recorder();
    const broken: Stage = {
      name: 'broken',
      after: ['index'],
      async run() {
        await sleep(20);
        throw new Error('disk full');
      },
    };
    // A long stage that listens to the build's signal stops early (as the site stage kills its renderers).
    const long: Stage = {
      name: 'long',
      after: ['index'],
      async run(ctx) {
        events.push('long:start');
        await sleep(60_000, undefined, { signal: ctx.signal });
        events.push('long:end');
      },
    };
    const { dataDir, exportPath } = catalog();
    const started = performance.now();
    const failed = await runBuild({
      dataDir,
      exportPath,
      baseUrl: TEST_BASE_URL,
      quiet: true,
      stageConcurrency: 3,
      stages: [INDEX_STAGE, stage('beside', 200), long, broken, stage('later', 40)],
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(BuildStageError);
    expect((failed as BuildStageError).stage).toBe('broken');
    // The stage beside it was awaited (it wrote into the build directory), the long one stopped; none started after.
    expect(events).toEqual(['beside:start', 'long:start', 'beside:end']);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(readdirSync(join(dataDir, 'builds')).filter((name) => !name.startsWith('.'))).toEqual([]);
    expect(existsSync(join(dataDir, 'current'))).toBe(false);
  });

  it('refuses stages that wait for each other', async () => {
    const stage = (name: string, after: string[]): Stage => ({ name, after, run: async () => undefined });
    const run = () => Promise.resolve();
    await expect(
      runStages([stage('a', ['b']), stage('b', ['a'])], { concurrency: 2, memoryBytes: 1, listings: () => 0, estimateContext: {}, run }),
    ).rejects.toThrow(/stages that wait for each other or for themselves: a, b/);
    await expect(runStages([stage('a', []), stage('a', [])], { concurrency: 2, memoryBytes: 1, listings: () => 0, estimateContext: {}, run })).rejects.toThrow(
      /listed twice/,
    );
  });

  it('runs one stage per core by default, at least two, and as many as asked', () => {
    expect(stageConcurrency(undefined, 1)).toBe(2);
    expect(stageConcurrency(undefined, 8)).toBe(8);
    expect(stageConcurrency(1, 8)).toBe(1);
  });

  it('declares the product stages after the index side by side, the front after those that write site/', async () => {
    const after = Object.fromEntries((await defaultStages()).map((stage) => [stage.name, stage.after]));
    expect(after).toEqual({
      index: [],
      embeddings: ['index'],
      site: ['index'],
      shards: ['index'],
      discovery: ['index'],
      front: ['site', 'shards', 'discovery'],
    });
  });
});
