// `npm run eval [-- options]`: nDCG@10 and recall@10 of keyword, semantic and hybrid listing search over the
// judged natural-language queries in test/eval/queries.json, in-process through the shim's own search
// functions, on a build of the embedded snapshot.
//
//   --build DIR   evaluate this build directory (runtime/ with embeddings)
//   --data DIR    evaluate the current build of this data directory
//   (neither)     build data/listings.jsonl into $TMPDIR/catalog-eval (reused while the export is unchanged)
//   --verbose     per-query scores
//   --pool N      for judging: each query's top N from every system, marked + judged relevant, ? unjudged
//   --check       exit 1 unless hybrid beats keyword on nDCG@10
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EMBEDDINGS_STAGE } from '../../build/embeddings/embeddings-stage.ts';
import { buildDirs, currentBuild, INDEX_STAGE, runBuild } from '../../build/pipeline.ts';
import { loadSnapshot } from '../../server/catalog/live-catalog.ts';
import { SemanticIndex } from '../../server/search/semantic-index.ts';
import { evaluate, loadQueries, runQuery, systems, CUTOFF } from './evaluate.ts';

const { values } = parseArgs({
  options: {
    build: { type: 'string' },
    data: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    pool: { type: 'string' },
    check: { type: 'boolean', default: false },
  },
});

async function evalBuild(): Promise<string> {
  if (values.build) return resolve(values.build);
  if (values.data) {
    const build = currentBuild(buildDirs(resolve(values.data)));
    if (!build) throw new Error(`no current build in ${values.data}`);
    return build;
  }
  const exportPath = resolve(import.meta.dirname, '../../data/listings.jsonl');
  const dataDir = join(tmpdir(), 'catalog-eval');
  const { size, mtimeMs } = statSync(exportPath);
  const stamp = `${size}-${mtimeMs}`;
  const stampPath = join(dataDir, 'export.stamp');
  const existing = currentBuild(buildDirs(dataDir));
  if (existing && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp && existsSync(join(existing, 'runtime', 'embeddings'))) return existing;
  console.error(`building ${exportPath} into ${dataDir} (index + embeddings stages)…`);
  const { buildDir } = await runBuild({ dataDir, exportPath, baseUrl: 'http://catalog.test', quiet: true, stages: [INDEX_STAGE, EMBEDDINGS_STAGE] });
  writeFileSync(stampPath, stamp);
  return buildDir;
}

const buildDir = await evalBuild();
const snapshot = loadSnapshot(buildDir);
const semantic = new SemanticIndex();
const status = await semantic.load(snapshot);
if (status !== 'ready') throw new Error(`embeddings of ${buildDir} are ${status}`);
const queries = loadQueries();

try {
  if (values.pool) {
    const depth = Number(values.pool);
    const line = (doc: number) => {
      const listing = JSON.parse(snapshot.store.readJson([doc])[0]!) as { id: string; type: string; name: string; description?: string };
      return `${listing.id} | ${listing.name} | ${(listing.description ?? '').replace(/\s+/g, ' ').slice(0, 140)}`;
    };
    for (const judged of queries) {
      const relevant = new Set(judged.relevant);
      const seen = new Set<string>();
      console.log(`\n### ${judged.query}  (seeks ${judged.seeks.join(', ')}; ${judged.relevant.length} judged relevant)`);
      for (const system of systems(semantic)) {
        for (const id of runQuery(snapshot, system, judged.query, depth).ids) {
          if (seen.has(id)) continue;
          seen.add(id);
          console.log(`${relevant.has(id) ? '+' : '?'} ${line(snapshot.store.findDoc(id)!)}`);
        }
      }
    }
  } else {
    const scores = evaluate(snapshot, semantic, queries);
    const types = new Set(queries.flatMap((q) => q.seeks));
    console.log(`\n${queries.length} judged natural-language queries (seeking ${[...types].sort().join(', ')}), ${snapshot.store.count} listings, ${buildDir}\n`);
    const rows = scores.map((s) => [s.name, s.ndcg.toFixed(3), s.recall.toFixed(3), String(s.fallbacks)]);
    const header = ['system', `nDCG@${CUTOFF}`, `recall@${CUTOFF}`, 'fallbacks'];
    const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const fmt = (r: string[]) => r.map((v, i) => v.padEnd(width[i]!)).join('  ');
    console.log(fmt(header));
    console.log(fmt(width.map((w) => '-'.repeat(w))));
    for (const r of rows) console.log(fmt(r));
    if (values.verbose) {
      console.log(`\nper query nDCG@${CUTOFF} (${scores.map((s) => s.name).join(' / ')})`);
      queries.forEach((q, i) => console.log(`${scores.map((s) => s.perQuery[i]!.ndcg.toFixed(2)).join('  ')}  ${q.query}`));
    }
    const keyword = scores.find((s) => s.name === 'keyword (q)')!;
    const hybrid = scores.find((s) => s.name === 'hybrid (RRF)')!;
    console.log(`\nhybrid vs keyword (q) nDCG@${CUTOFF}: ${hybrid.ndcg.toFixed(3)} vs ${keyword.ndcg.toFixed(3)} (${hybrid.ndcg > keyword.ndcg ? 'hybrid better' : 'hybrid NOT better'})`);
    if (values.check && !(hybrid.ndcg > keyword.ndcg)) process.exitCode = 1;
  }
} finally {
  await semantic.close();
}
