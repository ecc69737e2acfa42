// Proof: `catalog rebuild` while the shim serves mixed traffic (16 closed-loop connections, the bench's load).
//   1. a good export (one record changed, so lastUpdated changes): the switch is seen by clients within 1 s,
//      0 failed requests, and every answer comes from exactly one build: the Catalog-Build header names one
//      build, and every /api/v1/meta body carries that build's lastUpdated;
//   2. a corrupt export (a line of broken JSON in the middle) and 3. a truncated one (cut mid-record): the
//      rebuild is refused, `current` does not move, the build of step 1 keeps serving, 0 failed requests.
// The source data directory is copied (database, cache, current build) so it is never modified.
//   flock /tmp/catalog-bench.lock npx node bench/proof/rebuild.ts <data-dir with a build>
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ROOT } from '../harness.ts';
import { maxOf, minOf, percentile, run, startShim, startTraffic, tally } from './traffic.ts';

const source = process.argv[2];
if (!source) throw new Error('usage: rebuild.ts <data dir with a build>');
const work = mkdtempSync(join(tmpdir(), 'catalog-proof-rebuild-'));
const dataDir = join(work, 'data');
mkdirSync(join(dataDir, 'builds'), { recursive: true });
const sourceBuild = readlinkSync(join(source, 'current'));
cpSync(join(source, 'catalog.db'), join(dataDir, 'catalog.db'));
cpSync(join(source, 'cache'), join(dataDir, 'cache'), { recursive: true });
cpSync(join(source, sourceBuild), join(dataDir, sourceBuild), { recursive: true });
symlinkSync(sourceBuild, join(dataDir, 'current'));

// The exports, next to the stored files and build summary they refer to.
const exportsDir = join(work, 'exports');
mkdirSync(exportsDir);
symlinkSync(join(ROOT, 'data', 'files'), join(exportsDir, 'files'));
cpSync(join(ROOT, 'data', 'build-summary.json'), join(exportsDir, 'build-summary.json'));
const original = readFileSync(join(ROOT, 'data', 'listings.jsonl'), 'utf8');
const lines = original.split('\n').filter(Boolean);
const changed = JSON.parse(lines[0]!) as { updatedAt: string; description: string };
// One minute after the newest record, in the export's own format (no milliseconds): the new lastUpdated.
const newest = maxOf(lines.map((l) => Date.parse((JSON.parse(l) as { updatedAt: string }).updatedAt)));
const newUpdatedAt = new Date(newest + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
changed.updatedAt = newUpdatedAt;
changed.description += ' (changed by the rebuild proof)';
const good = join(exportsDir, 'good.jsonl');
writeFileSync(good, [JSON.stringify(changed), ...lines.slice(1)].join('\n') + '\n');
const corrupt = join(exportsDir, 'corrupt.jsonl');
const middle = Math.floor(lines.length / 2);
writeFileSync(
  corrupt,
  [...lines.slice(0, middle), '{"id":"skill:broken/export#x","slug":"x","type":"skill","name":', ...lines.slice(middle + 1)].join('\n') + '\n',
);
const truncated = join(exportsDir, 'truncated.jsonl');
const goodText = readFileSync(good, 'utf8');
writeFileSync(truncated, goodText.slice(0, Math.floor(goodText.length * 0.6)));

const shim = await startShim({
  CATALOG_DATA_DIR: dataDir,
  CATALOG_BUILD_ON_START: 'false',
  RATE_LIMIT_MAX: '1000000000',
  SEARCH_SIGNALS: 'off',
  PUBLIC_BASE_URL: 'http://catalog.test',
});
const lastUpdatedOf = async () => ((await (await fetch(`${shim.origin}/api/v1/meta`)).json()) as { lastUpdated: string }).lastUpdated;

interface Phase {
  name: string;
  exportPath: string;
  expectSwitch: boolean;
}

async function phase({ name, exportPath, expectSwitch }: Phase) {
  const before = basename(readlinkSync(join(dataDir, 'current')));
  const beforeUpdated = await lastUpdatedOf();
  const traffic = startTraffic([shim.origin], { connections: 16 });
  let switchedAt: number | undefined;
  const watcher = setInterval(() => {
    if (switchedAt === undefined && basename(readlinkSync(join(dataDir, 'current'))) !== before) switchedAt = traffic.elapsedMs;
  }, 2);
  await new Promise((r) => setTimeout(r, 3000));
  const rebuildStart = traffic.elapsedMs;
  const rebuild = await run(process.execPath, ['build/cli.ts', 'rebuild', '--export', exportPath, '--quiet'], {
    CATALOG_DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'http://catalog.test',
  });
  const rebuildEnd = traffic.elapsedMs;
  await new Promise((r) => setTimeout(r, 3000));
  clearInterval(watcher);
  await traffic.stop();
  const after = basename(readlinkSync(join(dataDir, 'current')));
  const answers = traffic.answers;
  const t = tally(answers);
  const builds = new Map<string, Set<string>>();
  for (const answer of answers) {
    if (answer.build === undefined) continue;
    if (!builds.has(answer.build)) builds.set(answer.build, new Set());
    if (answer.lastUpdated !== undefined) builds.get(answer.build)!.add(answer.lastUpdated);
  }
  const missingBuild = answers.filter((a) => a.status > 0 && a.build === undefined).length;
  const newAnswers = answers.filter((a) => a.build === after && after !== before);
  const firstNew = newAnswers.length ? minOf(newAnswers.map((a) => a.doneAt)) : undefined;
  // Answers from the old build to requests sent after the switch was visible to clients.
  const staleAfterSwitch = firstNew === undefined ? 0 : answers.filter((a) => a.build === before && a.sentAt > firstNew).length;
  const lastOldSent = maxOf(answers.filter((a) => a.build === before).map((a) => a.sentAt));
  const latencies = answers.map((a) => a.doneAt - a.sentAt);
  const around =
    switchedAt === undefined ? [] : answers.filter((a) => a.sentAt >= switchedAt! - 200 && a.sentAt <= switchedAt! + 1000).map((a) => a.doneAt - a.sentAt);
  const result = {
    phase: name,
    rebuild: {
      exitCode: rebuild.code,
      seconds: Math.round((rebuildEnd - rebuildStart) / 100) / 10,
      tail: rebuild.output.trim().split('\n').slice(-3).join(' | ').slice(0, 400),
    },
    current: { before, after, moved: before !== after },
    requests: t.total,
    requestsPerSecond: Math.round(t.total / (traffic.elapsedMs / 1000)),
    byStatus: t.byStatus,
    failed: t.failed,
    failureSamples: t.failures,
    answersWithoutBuildHeader: missingBuild,
    builds: Object.fromEntries([...builds].map(([build, updated]) => [build, [...updated]])),
    lastUpdated: { before: beforeUpdated, after: await lastUpdatedOf() },
    switch:
      switchedAt === undefined
        ? null
        : {
            currentMovedAtMs: Math.round(switchedAt),
            firstNewAnswerAtMs: firstNew === undefined ? null : Math.round(firstNew),
            visibleAfterMs: firstNew === undefined ? null : Math.round(firstNew - switchedAt),
            lastOldBuildRequestSentAtMs: Math.round(lastOldSent),
            oldBuildAnswersToRequestsSentAfterFirstNew: staleAfterSwitch,
            p99AroundSwitchMs: Math.round(percentile(around, 99)),
          },
    p50ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99ms: Math.round(percentile(latencies, 99) * 10) / 10,
  };
  const oneBuildPerAnswer = [...builds.values()].every((updated) => updated.size <= 1) && missingBuild === 0;
  const switchOk = expectSwitch
    ? result.current.moved &&
      rebuild.code === 0 &&
      firstNew !== undefined &&
      firstNew - switchedAt! <= 1000 &&
      staleAfterSwitch === 0 &&
      result.lastUpdated.after === newUpdatedAt
    : !result.current.moved && rebuild.code !== 0 && builds.size === 1 && builds.has(before);
  const ok = t.failed === 0 && oneBuildPerAnswer && switchOk;
  return { ...result, ok, oneBuildPerAnswer };
}

const results = [];
try {
  results.push(await phase({ name: 'good export: rebuild and switch', exportPath: good, expectSwitch: true }));
  results.push(await phase({ name: 'corrupt export (broken JSON line)', exportPath: corrupt, expectSwitch: false }));
  results.push(await phase({ name: 'truncated export (cut mid-record at 60%)', exportPath: truncated, expectSwitch: false }));
} finally {
  await shim.stop();
}
console.log(JSON.stringify(results, null, 2));
const passed = results.every((r) => r.ok);
console.log(passed ? 'REBUILD PROOF PASSED' : 'REBUILD PROOF FAILED');
if (passed) rmSync(work, { recursive: true, force: true });
else console.log(`work directory kept: ${work}; shim log tail:\n${shim.log().slice(-3000)}`);
process.exit(passed ? 0 : 1);
