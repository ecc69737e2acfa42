// Measures the embedding stack end to end on the real catalog: training time, embedding
// throughput, artifact sizes, exact int8 search latency (catalog size and 100k rows), int8-vs-float
// agreement, and sample neighbours. Read-only apart from a temp directory it removes.
//
//   node build/embeddings/bench.ts [listings.jsonl] [--model DIR]
//
// With --model (or CATALOG_EMBEDDING_MODEL_DIR) it benchmarks that model instead of training one.

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MODEL_DIR_ENV, listingText, loadEmbedder } from './embedder.ts';
import { trainStaticModel } from './train-static-model.ts';
import { VECTORS_FILE, VectorIndex, quantize, writeVectors } from './vectors.ts';

interface Listing {
  id: string;
  type: string;
  name: string;
  description?: string;
}

const QUERIES = ['postgres database', 'generate images from text prompts', 'send slack messages', 'browser automation testing'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

function timeSearch(run: () => void, reps: number): { min: number; p50: number; p90: number } {
  for (let i = 0; i < 3; i++) run();
  const t: number[] = [];
  for (let i = 0; i < reps; i++) {
    const s = performance.now();
    run();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return { min: t[0] ?? Number.NaN, p50: percentile(t, 0.5), p90: percentile(t, 0.9) };
}

const fmt = (x: number): string => x.toFixed(2);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const modelFlag = args.indexOf('--model');
  const modelArg = modelFlag >= 0 ? args[modelFlag + 1] : process.env[MODEL_DIR_ENV];
  const listingsPath = resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--model') ?? 'data/listings.jsonl');
  const listings = (await readFile(listingsPath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Listing);
  const texts = listings.map(listingText);
  const tmp = await mkdtemp(join(tmpdir(), 'catalog-embeddings-bench-'));
  try {
    const modelDir = modelArg ? resolve(modelArg) : join(tmp, 'model');
    if (!modelArg) {
      const t = performance.now();
      const { manifest, timingsMs } = await trainStaticModel(texts, modelDir);
      const onnx = manifest.files['onnx/model.onnx']?.bytes ?? 0;
      console.log(`train: ${texts.length} docs in ${Math.round(performance.now() - t)} ms (${JSON.stringify(timingsMs)})`);
      console.log(`model: vocab ${manifest.vocabSize}, dims ${manifest.dims}, onnx ${(onnx / 1e6).toFixed(1)} MB`);
    }

    let t = performance.now();
    const embedder = await loadEmbedder(modelDir);
    console.log(`load: ${Math.round(performance.now() - t)} ms (${embedder.modelId}, ${embedder.dims} dims)`);
    t = performance.now();
    const vectors = await embedder.embed(texts);
    const embedMs = performance.now() - t;
    console.log(`embed corpus: ${Math.round(embedMs)} ms = ${Math.round((texts.length / embedMs) * 1000)} docs/s`);
    const qt: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      await embedder.embed([QUERIES[i % QUERIES.length] ?? '']);
      qt.push(performance.now() - s);
    }
    qt.sort((a, b) => a - b);
    console.log(`embed one query: p50 ${fmt(percentile(qt, 0.5))} ms`);

    const q = quantize(vectors, embedder.dims);
    const manifest = await writeVectors(join(tmp, 'vectors'), q, { modelId: embedder.modelId });
    const i8 = (await stat(join(tmp, 'vectors', VECTORS_FILE))).size;
    const json = (await stat(join(tmp, 'vectors', 'vectors.json'))).size;
    console.log(`artifact: ${VECTORS_FILE} ${(i8 / 1e6).toFixed(2)} MB, vectors.json ${json} B (${manifest.count} × ${manifest.dims})`);
    const index = new VectorIndex(q, embedder.modelId);

    const queryVecs = await embedder.embed(QUERIES);
    // int8 vs float agreement on the real vectors.
    let overlap = 0;
    for (const qv of queryVecs) {
      const exact = vectors
        .map((v, i) => {
          let s = 0;
          for (let c = 0; c < v.length; c++) s += (v[c] ?? 0) * (qv[c] ?? 0);
          return { i, s };
        })
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const got = new Set(index.search(qv, 10).map((h) => h.index));
      overlap += exact.filter((e) => got.has(e.i)).length;
    }
    console.log(`int8 recall@10 vs float: ${(overlap / (10 * queryVecs.length)).toFixed(3)}`);

    const q0 = queryVecs[0] ?? new Float32Array(embedder.dims);
    const full = timeSearch(() => index.search(q0, 10), 30);
    console.log(`search ${index.count}×${index.dims} k=10: min ${fmt(full.min)} p50 ${fmt(full.p50)} p90 ${fmt(full.p90)} ms`);

    // 100k rows: the catalog's vectors tiled with a little noise (same distribution, more rows).
    const big: Float32Array[] = [];
    for (let r = 0; big.length < 100_000; r++) {
      const src = vectors[r % vectors.length] ?? new Float32Array(embedder.dims);
      const v = Float32Array.from(src, (x, c) => x + 0.01 * Math.sin(r * 31 + c));
      big.push(v);
    }
    const bigIndex = new VectorIndex(quantize(big, embedder.dims), 'bench');
    const b = timeSearch(() => bigIndex.search(q0, 10), 30);
    console.log(`search 100000×${embedder.dims} k=10: min ${fmt(b.min)} p50 ${fmt(b.p50)} p90 ${fmt(b.p90)} ms`);
    const subset = Int32Array.from({ length: 10_000 }, (_, i) => i * 10);
    const s = timeSearch(() => bigIndex.searchSubset(q0, subset, 10), 30);
    console.log(`searchSubset 10000 of 100000 k=10: min ${fmt(s.min)} p50 ${fmt(s.p50)} ms`);

    for (let qi = 0; qi < QUERIES.length; qi++) {
      console.log(`\n"${QUERIES[qi]}"`);
      for (const h of index.search(queryVecs[qi] ?? q0, 5)) {
        const l = listings[h.index];
        console.log(`  ${h.score.toFixed(3)}  ${l?.type}  ${l?.name} — ${(l?.description ?? '').slice(0, 70)}`);
      }
    }
    await embedder.dispose();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
