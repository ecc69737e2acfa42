// `npm run eval [-- options]`: nDCG@10, recall@10 and MRR per query kind of `q` (keyword), vectors alone and
// hybrid (what `semantic` serves) over the judged sets (../shared/relevance/dev.jsonl when present, and
// test/eval/own.jsonl), in-process through the shim's own search functions, on a build of the embedded snapshot.
//
//   --build DIR   evaluate this build directory (runtime/ with embeddings)
//   --data DIR    evaluate the current build of this data directory
//   (neither)     build data/listings.jsonl into $TMPDIR/catalog-eval (reused while the export is unchanged)
//   --verbose     per-query scores
//   --pool N      for judging: each query's top N from every system, marked + judged relevant, ? unjudged
//   --dev FILE    the shared judged set (default ../shared/relevance/dev.jsonl)
//   --check       exit 1 unless hybrid beats q on nl nDCG@10 and is not lower on the other kinds
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EMBEDDINGS_STAGE } from '../../build/stages/embeddings-stage.ts';
import { buildDirs, currentBuild, INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { loadSnapshot } from '../../server/catalog/snapshot.ts';
import { isCurrentRuntime } from '../../src/artifacts/runtime-manifest.ts';
import { DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST } from '../../src/embeddings/static-encoder.ts';
import { SemanticIndex } from '../../server/search-runtime/semantic-index.ts';
import { evaluate, judgedSets, runQuery, systems, CUTOFF, DEV_SET } from './evaluate.ts';

const { values } = parseArgs({
  options: {
    build: { type: 'string' },
    data: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    pool: { type: 'string' },
    check: { type: 'boolean', default: false },
    dev: { type: 'string' },
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
  // A new default encoder (or a configured model) makes a new build, as does a build this code cannot read.
  const encoder = readFileSync(join(DEFAULT_ENCODER_DIR, STATIC_ENCODER_MANIFEST), 'utf8');
  const stamp = `${size}-${mtimeMs}-${createHash('sha256')
    .update(encoder)
    .update(process.env.CATALOG_EMBEDDING_MODEL_DIR ?? '')
    .digest('hex')}`;
  const stampPath = join(dataDir, 'export.stamp');
  const existing = currentBuild(buildDirs(dataDir));
  if (
    existing &&
    isCurrentRuntime(existing) &&
    existsSync(stampPath) &&
    readFileSync(stampPath, 'utf8') === stamp &&
    existsSync(join(existing, 'runtime', 'embeddings'))
  )
    return existing;
  console.error(`building ${exportPath} into ${dataDir} (index + embeddings stages)…`);
  const { buildDir } = await runBuild({
    dataDir,
    exportPath,
    baseUrl: 'http://catalog.test',
    quiet: true,
    stages: [INDEX_STAGE, EMBEDDINGS_STAGE],
    embeddingModelDir: process.env.CATALOG_EMBEDDING_MODEL_DIR,
  });
  writeFileSync(stampPath, stamp);
  return buildDir;
}

const buildDir = await evalBuild();
const snapshot = loadSnapshot(buildDir);
const semantic = new SemanticIndex();
const status = await semantic.load(snapshot);
if (status !== 'ready') throw new Error(`embeddings of ${buildDir} are ${status}`);
const sets = judgedSets(values.dev ? resolve(values.dev) : DEV_SET);

try {
  if (values.pool) {
    const depth = Number(values.pool);
    const line = (doc: number) => {
      const listing = JSON.parse(snapshot.store.readJson([doc])[0]!) as { id: string; type: string; name: string; description?: string };
      return `${listing.id} | ${listing.name} | ${(listing.description ?? '').replace(/\s+/g, ' ').slice(0, 140)}`;
    };
    for (const judged of sets.flatMap((set) => set.queries)) {
      const seen = new Set<string>();
      console.log(
        `\n### ${judged.qid} ${judged.query}  (${judged.kind}${judged.type ? ` ${judged.type}` : ''}; ${Object.keys(judged.relevant).length} judged relevant)`,
      );
      for (const system of systems(semantic)) {
        for (const id of (await runQuery(snapshot, system, judged, depth)).ids) {
          if (seen.has(id)) continue;
          seen.add(id);
          console.log(`${judged.relevant[id] ? `+${judged.relevant[id]}` : '? '} ${line(snapshot.store.findDoc(id)!)}`);
        }
      }
    }
  } else {
    console.log(`${snapshot.store.count} listings, ${buildDir}`);
    let failed = false;
    for (const set of sets) {
      const scores = await evaluate(snapshot, semantic, set.queries);
      const kinds = Object.keys(scores[0]!.byKind);
      console.log(`\n${set.name}: ${set.queries.length} judged queries — nDCG@${CUTOFF} / recall@${CUTOFF} / MRR`);
      const header = ['kind', 'n', ...scores.map((s) => s.name.padEnd(20))];
      console.log(header.join('  '));
      for (const kind of kinds) {
        const cells = scores.map((s) => {
          const m = s.byKind[kind]!;
          return `${m.ndcg.toFixed(3)} ${m.recall.toFixed(3)} ${m.mrr.toFixed(3)}`.padEnd(20);
        });
        console.log([kind.padEnd(4), String(scores[0]!.byKind[kind]!.n).padStart(2), ...cells].join('  '));
      }
      const fallbacks = scores.filter((s) => s.fallbacks > 0).map((s) => `${s.name} ${s.fallbacks}`);
      if (fallbacks.length) console.log(`keyword fallbacks: ${fallbacks.join(', ')}`);
      if (values.verbose) {
        console.log(`\nper query nDCG@${CUTOFF} (${scores.map((s) => s.name).join(' / ')})`);
        set.queries.forEach((q, i) => console.log(`${scores.map((s) => s.perQuery[i]!.ndcg.toFixed(2)).join('  ')}  ${q.kind.padEnd(8)} ${q.query}`));
      }
      const q = scores.find((s) => s.name === 'q')!;
      const hybrid = scores.find((s) => s.name === 'hybrid')!;
      for (const kind of kinds) {
        if (kind === 'overall') continue;
        const better = hybrid.byKind[kind]!.ndcg - q.byKind[kind]!.ndcg;
        if (kind === 'nl' ? better <= 0 : better < -0.005) failed = true;
      }
    }
    if (values.check && failed) {
      console.log('\ncheck failed: hybrid must beat q on nl and not be lower on the other kinds');
      process.exitCode = 1;
    }
  }
} finally {
  await semantic.close();
}
