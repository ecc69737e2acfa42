// What a build tells an operator whose output is not a terminal (cron, a log file): each stage's start and end,
// every few seconds what a running stage is doing, and, when it fails, which stage failed; with quiet, nothing but
// the error itself (the caller prints the summary).
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BuildStageError, INDEX_STAGE, runBuild, type Stage } from '../../build/build-pipeline.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';
import { TEST_BASE_URL } from '../support/test-base-url.ts';

/** A stage that works for a while, saying how far it is. */
const SLOW: Stage = {
  name: 'slow',
  async run(ctx) {
    for (let done = 0; done < 6; done++) {
      ctx.progress(done, 6, 'steps');
      await sleep(60);
    }
  },
};
const BROKEN: Stage = {
  name: 'broken',
  run() {
    return Promise.reject(new Error('disk full'));
  },
};

/** A log file: no terminal, every line kept. */
function logFile() {
  const lines: string[] = [];
  return { lines, output: { isTTY: false, write: (text: string) => lines.push(...text.trimEnd().split('\n')) } };
}

function catalog() {
  const dir = tempDir('catalog-progress-');
  return { dataDir: join(dir, 'data'), exportPath: writeExport(join(dir, 'export'), sampleRecords(3)) };
}

describe('build progress', () => {
  it('says when each stage starts and ends, and what a running stage is doing every interval', async () => {
    const { lines, output } = logFile();
    await runBuild({ ...catalog(), baseUrl: TEST_BASE_URL, stages: [INDEX_STAGE, SLOW], output, progressEveryMs: 100 });
    const text = lines.map((line) => line.replace(/^\d\d:\d\d:\d\d /, ''));
    for (const stage of ['ingest', 'index', 'slow']) {
      expect(text).toContain(`${stage}: started`);
      expect(text.some((line) => new RegExp(`^${stage}: done in \\d+\\.\\d s$`).test(line))).toBe(true);
      expect(text.indexOf(`${stage}: started`)).toBeLessThan(text.findIndex((line) => line.startsWith(`${stage}: done`)));
    }
    // The periodic line: how far, of what, for how long, and the memory it takes.
    expect(text.some((line) => /^slow: \d\/6 steps \(\d+ %\), \d+\.\d s so far, rss \d+ MiB$/.test(line))).toBe(true);
    // Every line is stamped with the time of day.
    expect(lines.every((line) => /^\d\d:\d\d:\d\d /.test(line))).toBe(true);
  });

  it('names the stage that failed, in the error and in the log', async () => {
    const { lines, output } = logFile();
    const failed = await runBuild({ ...catalog(), baseUrl: TEST_BASE_URL, stages: [INDEX_STAGE, BROKEN], output }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(BuildStageError);
    expect((failed as BuildStageError).stage).toBe('broken');
    expect((failed as Error).message).toBe('build failed in stage "broken": disk full');
    expect(((failed as Error).cause as Error).message).toBe('disk full');
    expect(lines.some((line) => / broken: failed after \d+\.\d s$/.test(line))).toBe(true);
  });

  it('with quiet, writes nothing; a failure still names its stage', async () => {
    const { lines, output } = logFile();
    const { dataDir, exportPath } = catalog();
    await runBuild({ dataDir, exportPath, baseUrl: TEST_BASE_URL, stages: [INDEX_STAGE, SLOW], output, progressEveryMs: 50, quiet: true });
    const failed = await runBuild({ dataDir, baseUrl: TEST_BASE_URL, stages: [INDEX_STAGE, BROKEN], output, quiet: true, force: true }).catch(
      (error: unknown) => error,
    );
    expect(lines).toEqual([]);
    expect((failed as BuildStageError).stage).toBe('broken');
  });
});
