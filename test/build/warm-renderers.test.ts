// The site stage starts its first renderers once ingest is done (Stage.warm), gated: they bundle the project while
// the index stage writes the runtime, and read it only once the stage lets them go. A gated renderer reads nothing
// before its go (its runtime does not exist until then, and it renders from it after); a build that fails before the
// site stage runs, or whose process is interrupted, leaves no renderer running, and a failed build's directory is
// removed. Real renderers over a small catalog.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { startAstroBuild } from '../../build/stages/site-stage.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';
import { TEST_BASE_URL } from '../support/test-base-url.ts';

/** The processes whose command line names `path` (a renderer names its output folder, inside the build). */
function processesNaming(path: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(path)) pids.push(Number(entry));
    } catch {
      // Ended while listed.
    }
  }
  return pids;
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(100);
  }
}

/**
 * A build whose index stage fails (or, `interrupt`, never ends) once the site stage's warm renderer is running, in a
 * process of its own: it prints the build directory, then the error it failed with.
 */
function failingBuildScript(dir: string, interrupt: boolean): string {
  const script = join(dir, 'failing-build.ts');
  const pipeline = resolve('build/build-pipeline.ts');
  const site = resolve('build/stages/site-stage.ts');
  writeFileSync(
    script,
    `import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBuild } from ${JSON.stringify(pipeline)};
import { SITE_STAGE } from ${JSON.stringify(site)};
const renderers = (path) => readdirSync('/proc').filter((pid) => {
  try { return /^\\d+$/.test(pid) && readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes(path); } catch { return false; }
});
const index = {
  name: 'index',
  runtime: true,
  after: [],
  async run(ctx) {
    console.log('build ' + ctx.buildDir);
    while (renderers(ctx.buildDir).length === 0) await sleep(100);
    console.log('renderer started');
    if (${interrupt}) await new Promise(() => setInterval(() => undefined, 1000));
    throw new Error('the index failed');
  },
};
try {
  await runBuild({ dataDir: process.argv[2], exportPath: process.argv[3], baseUrl: ${JSON.stringify(TEST_BASE_URL)}, quiet: true, stageConcurrency: 2, stages: [index, SITE_STAGE] });
} catch (error) {
  console.log('failed: ' + error.message);
}
`,
  );
  return script;
}

function runScript(script: string, args: string[], onLine: (line: string, kill: (signal: NodeJS.Signals) => void) => void) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    for (const line of text.split('\n').filter(Boolean)) {
      lines.push(line);
      onLine(line, (signal) => child.kill(signal));
    }
  });
  const exited = new Promise<number | string>((done) => child.on('exit', (code, signal) => done(code ?? signal ?? '')));
  return { lines, exited };
}

describe('renderers started early', () => {
  it('reads nothing of the runtime before its go, and renders from it after', async () => {
    const dir = tempDir('catalog-warm-gate-');
    const exportPath = writeExport(join(dir, 'export'), sampleRecords(2));
    const { buildDir } = await runBuild({ dataDir: join(dir, 'data'), exportPath, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE] });
    // The runtime the renderer is told of is written only once it waits: had it read it before, it would have failed.
    const runtimeDir = join(dir, 'later', 'runtime');
    const renderer = startAstroBuild({ outDir: join(dir, 'later', 'astro'), runtimeDir, baseUrl: TEST_BASE_URL, gated: true });
    try {
      await Promise.race([renderer.waiting, renderer.report]);
      await sleep(500);
      expect(existsSync(runtimeDir)).toBe(false);
      cpSync(join(buildDir, 'runtime'), runtimeDir, { recursive: true });
      renderer.go();
      const report = await renderer.report;
      expect(report.pages).toBeGreaterThan(0);
      const slug = sampleRecords(2)[0]!.slug;
      expect(readFileSync(join(dir, 'later', 'astro', 'client', 'listings', `${slug}.html`), 'utf8')).toContain(slug);
    } finally {
      await renderer.stop();
    }
  }, 120_000);

  it('kills the warm renderer when the index stage fails: no process left, the build directory removed, the process exits', async () => {
    const dir = tempDir('catalog-warm-fail-');
    const exportPath = writeExport(join(dir, 'export'), sampleRecords(2));
    const { lines, exited } = runScript(failingBuildScript(dir, false), [join(dir, 'data'), exportPath], () => undefined);
    // The process ends by itself: nothing (a renderer's IPC channel) keeps it open.
    expect(await exited).toBe(0);
    expect(lines).toContain('renderer started');
    expect(lines.at(-1)).toMatch(/^failed: build failed in stage "index": the index failed/);
    const buildDir = lines.find((line) => line.startsWith('build '))!.slice('build '.length);
    expect(existsSync(buildDir)).toBe(false);
    expect(processesNaming(buildDir)).toEqual([]);
  }, 120_000);

  it('leaves no renderer running when the build process is interrupted', async () => {
    const dir = tempDir('catalog-warm-int-');
    const exportPath = writeExport(join(dir, 'export'), sampleRecords(2));
    const { lines, exited } = runScript(failingBuildScript(dir, true), [join(dir, 'data'), exportPath], (line, kill) => {
      if (line === 'renderer started') kill('SIGINT');
    });
    expect(await exited).toBe('SIGINT');
    const buildDir = lines.find((line) => line.startsWith('build '))!.slice('build '.length);
    // The renderer, gated or still bundling, sees its parent gone and ends.
    // A loaded machine may take seconds to let the renderer run at all.
    await until(() => processesNaming(buildDir).length === 0, 30_000);
  }, 120_000);
});
