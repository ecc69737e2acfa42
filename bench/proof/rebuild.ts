// Proof: `catalog rebuild` while the shim serves mixed traffic (16 closed-loop connections, the bench's load).
//   1. a good export (one record changed, so lastUpdated changes): the switch is seen by clients within 1 s,
//      0 failed requests, and every answer comes from exactly one build: the Catalog-Build header names one
//      build, and every /api/v1/meta body carries that build's lastUpdated;
//   2. a corrupt export (a line of broken JSON in the middle) and 3. a truncated one (cut mid-record): the
//      rebuild is refused, `current` does not move, the build of step 1 keeps serving, 0 failed requests.
// The source data directory is never modified: its database is copied, its build and embeddings cache are
// hard-linked (a build is never written once made, and the cache's entries are written as new directories).
// <export> is the export the data directory was built from (default: the embedded snapshot, data/listings.jsonl),
// with its build-summary.json and files/ beside it; it is read a line at a time, so a 1M-listing export works.
//   flock /tmp/catalog-bench.lock npx node bench/proof/rebuild.ts <data-dir with a build> [<export>]
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ROOT } from '../harness.ts';
import { fileLines } from '../../src/artifacts/file-lines.ts';
import { MIXED, maxOf, minOf, percentile, run, startShim, startTraffic, tally, type Req } from './traffic.ts';

const source = process.argv[2];
if (!source) throw new Error('usage: rebuild.ts <data dir with a build> [<export>]');
const sourceExport = resolve(process.argv[3] ?? join(ROOT, 'data', 'listings.jsonl'));
const work = mkdtempSync(join(tmpdir(), 'catalog-proof-rebuild-'));
const dataDir = join(work, 'data');
mkdirSync(join(dataDir, 'builds'), { recursive: true });
const sourceBuild = readlinkSync(join(source, 'current'));
cpSync(join(source, 'catalog.db'), join(dataDir, 'catalog.db'));
const linkTree = (from: string, to: string) => execFileSync('cp', ['-al', from, to]);
if (existsSync(join(source, 'cache'))) linkTree(join(source, 'cache'), join(dataDir, 'cache'));
linkTree(join(source, sourceBuild), join(dataDir, sourceBuild));
symlinkSync(sourceBuild, join(dataDir, 'current'));
// The public origin the build was made for: another would make the rebuild render every page anew (its fingerprint).
const baseUrl = (JSON.parse(readFileSync(join(source, sourceBuild, 'build.json'), 'utf8')) as { baseUrl: string }).baseUrl;

// The exports, next to the stored files and build summary they refer to, written a line at a time.
const exportsDir = join(work, 'exports');
mkdirSync(exportsDir);
symlinkSync(join(dirname(sourceExport), 'files'), join(exportsDir, 'files'));
copyFileSync(join(dirname(sourceExport), 'build-summary.json'), join(exportsDir, 'build-summary.json'));
let count = 0;
let newest = 0;
let first: { slug: string; updatedAt: string; description: string } | undefined;
for (const line of fileLines(sourceExport)) {
  const record = JSON.parse(line.toString()) as { slug: string; updatedAt: string; description: string };
  first ??= record;
  newest = Math.max(newest, Date.parse(record.updatedAt));
  count++;
}
if (!first) throw new Error(`${sourceExport} holds no records`);
// One minute after the newest record, in the export's own format (no milliseconds): the new lastUpdated.
const newUpdatedAt = new Date(newest + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const changed = { ...first, updatedAt: newUpdatedAt, description: `${first.description} (changed by the rebuild proof)` };
/** Writes the source export's lines to `path`, line n replaced by `replaced.get(n)` where it has one. */
function writeExportLines(path: string, replaced: ReadonlyMap<number, string>): void {
  const fd = openSync(path, 'w');
  try {
    let n = 0;
    for (const line of fileLines(sourceExport)) {
      const text = replaced.get(n);
      if (text === undefined) writeSync(fd, line);
      else writeSync(fd, text);
      writeSync(fd, '\n');
      n++;
    }
  } finally {
    closeSync(fd);
  }
}
const good = join(exportsDir, 'good.jsonl');
writeExportLines(good, new Map([[0, JSON.stringify(changed)]]));
const corrupt = join(exportsDir, 'corrupt.jsonl');
writeExportLines(corrupt, new Map([[Math.floor(count / 2), '{"id":"skill:broken/export#x","slug":"x","type":"skill","name":']]));
const truncated = join(exportsDir, 'truncated.jsonl');
{
  // The good export's first 60 % of bytes: it ends inside a record.
  const from = openSync(good, 'r');
  const to = openSync(truncated, 'w');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let left = Math.floor(statSync(good).size * 0.6);
  while (left > 0) {
    const read = readSync(from, chunk, 0, Math.min(chunk.length, left), null);
    if (read === 0) break;
    writeSync(to, chunk, 0, read);
    left -= read;
  }
  closeSync(from);
  closeSync(to);
}
// The mix's reads by id name a listing of the embedded snapshot; another catalog's first listing stands in for it.
const MIXED_SLUG = 'vercel-react-best-practices';
const mix: Req[] = MIXED.map((req) => ({
  ...req,
  path: req.path.replaceAll(MIXED_SLUG, first!.slug),
  ...(req.body ? { body: req.body.replaceAll(MIXED_SLUG, first!.slug) } : {}),
}));

const shim = await startShim({
  CATALOG_DATA_DIR: dataDir,
  CATALOG_BUILD_ON_START: 'false',
  RATE_LIMIT_MAX: '1000000000',
  SEARCH_SIGNALS: 'off',
  PUBLIC_BASE_URL: baseUrl,
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
  const traffic = startTraffic([shim.origin], { connections: 16, mix });
  let switchedAt: number | undefined;
  const watcher = setInterval(() => {
    if (switchedAt === undefined && basename(readlinkSync(join(dataDir, 'current'))) !== before) switchedAt = traffic.elapsedMs;
  }, 2);
  await new Promise((r) => setTimeout(r, 3000));
  const rebuildStart = traffic.elapsedMs;
  const rebuild = await run(process.execPath, ['build/cli.ts', 'rebuild', '--export', exportPath, '--quiet'], {
    CATALOG_DATA_DIR: dataDir,
    PUBLIC_BASE_URL: baseUrl,
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
