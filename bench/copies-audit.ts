// `node bench/copies-audit.ts [COUNT]`: the build time that copy groups and the audit add to the index stage, in
// process, on the scale generator's catalog of COUNT listings (default 100,000). Skills get stored files in the
// embedded snapshot's share (451 of 13,725 skills), each a copy of an embedded skill's files, so the audit reads as
// many bytes per skill as it does on the embedded snapshot. Prints one JSON line: the timings of three runs (wall and
// CPU milliseconds, and the wall time of each part).
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { generateCatalog } from '../build/scale/generate-catalog.ts';
import { ingest } from '../build/stages/ingest-stage.ts';
import { openCatalogDb } from '../build/sqlite-store.ts';
import { copiesAndAudits } from '../build/stages/index-stage.ts';

const count = Number(process.argv[2] ?? 100_000);
/** BENCH_KEEP=dir: keep the generated catalog there, and measure again over it on the next run. */
const keep = process.env.BENCH_KEEP;
const DATA = resolve(import.meta.dirname, '../data');
const work = keep ?? mkdtempSync(join(tmpdir(), 'copies-audit-'));
const database = join(work, 'catalog.db');
try {
  if (!existsSync(database)) await makeCatalog();
  const db = openCatalogDb(database);
  const ids = (db.prepare('SELECT id FROM listing ORDER BY installs DESC, id ASC').raw().all() as [string][]).map(([id]) => id);
  const docOf = new Map(ids.map((id, doc) => [id, doc]));
  // CPU time beside wall time: on a shared machine the wall time also counts the other processes' turns.
  const runs: { total: number; cpu: number; read: number; groups: number; audit: number }[] = [];
  let result: ReturnType<typeof copiesAndAudits> | undefined;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    result = copiesAndAudits(db, docOf, ids.length);
    const used = process.cpuUsage(cpu);
    runs.push({ total: Math.round(performance.now() - started), cpu: Math.round((used.user + used.system) / 1000), ...result.ms });
  }
  db.close();
  console.log(
    JSON.stringify({ listings: ids.length, ms: runs, groups: result!.copyStats.groups, copies: result!.copyStats.copies, audited: result!.audits.size }),
  );
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}

/** The generated catalog, its skills given stored files in the embedded snapshot's share, ingested into `database`. */
async function makeCatalog(): Promise<void> {
  mkdirSync(work, { recursive: true });
  const generated = join(work, 'generated.jsonl');
  await generateCatalog({ count, out: generated });

  const embedded: { slug: string; files: string[] }[] = [];
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  for (const slug of readdirSync(join(DATA, 'files')).sort()) {
    const files = walk(join(DATA, 'files', slug)).map((path) => relative(join(DATA, 'files', slug), path));
    files.sort((a, b) => (a === 'SKILL.md' ? -1 : b === 'SKILL.md' ? 1 : a < b ? -1 : 1));
    if (files[0] === 'SKILL.md') embedded.push({ slug, files });
  }

  const lines: string[] = [];
  let skills = 0;
  let withFiles = 0;
  for await (const line of createInterface({ input: createReadStream(generated) })) {
    if (!line) continue;
    const record = JSON.parse(line) as { type: string; slug: string; files?: string[] };
    if (record.type === 'skill' && skills++ % Math.round(13_725 / 451) === 0) {
      const source = embedded[withFiles++ % embedded.length]!;
      record.files = source.files;
      for (const path of source.files) {
        const to = join(work, 'files', record.slug, path);
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(DATA, 'files', source.slug, path), to);
      }
    } else delete record.files;
    lines.push(JSON.stringify(record));
  }
  const exportPath = join(work, 'listings.jsonl');
  writeFileSync(exportPath, lines.join('\n') + '\n');
  await ingest({ exportPath, database, historyEnd: '2026-04-16' });
}
