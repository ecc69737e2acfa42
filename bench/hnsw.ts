// The `hnsw` bench section: the HNSW graph's construction cost and recall@10 for several graph settings on the
// generated catalog, so the settings chosen by catalog size (hnswParams in src/search/hnsw.ts) rest on figures.
// Each setting builds the graph the embeddings stage builds (writeHnswGraph, every core) over the distinct texts'
// int8 vectors, then measures recall@10 of the shim's search (vectorCandidates: the graph's candidates ranked
// exactly) against exact search over the same vectors. Construction is timed in CPU (process.cpuUsage, the
// native threads included) as well as wall, since the machine may be shared.
// Environment: BENCH_HNSW_COUNTS (default 100000), BENCH_HNSW_SETTINGS (default 16/64,16/128,16/256,24/64,24/128,24/256:
// connectivity/expansionAdd; the search width stays that of hnswParams).
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { table } from './harness.ts';
import { recallRequests, RECALL_QUERY_COUNT } from './semantic.ts';
import { listingText } from '../src/embeddings/embedder.ts';
import { DEFAULT_ENCODER_DIR, loadStaticEncoder } from '../src/embeddings/static-encoder.ts';
import { HNSW_FILE, hnswParams, readHnsw, writeHnswForDocuments, writeHnswGraph, type HnswParams } from '../src/search/hnsw.ts';
import { SEMANTIC_CANDIDATES, vectorCandidates } from '../src/search/ranking/fusion.ts';
import { quantize, VectorIndex, type Quantized } from '../src/search/vectors.ts';

export const DEFAULT_SETTINGS = '16/64,16/128,16/256,24/64,24/128,24/256';

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function readTexts(path: string): Promise<string[]> {
  const texts: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    if (line) texts.push(listingText(JSON.parse(line) as { name?: string; description?: string }));
  }
  return texts;
}

/** Rows by distinct text (sorted, as the embeddings stage keeps them) and each document's row. */
function distinctRows(texts: readonly string[]): { sorted: string[]; rowOfDoc: Uint32Array } {
  const sorted = [...new Set(texts)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const row = new Map(sorted.map((text, i) => [text, i] as const));
  return { sorted, rowOfDoc: Uint32Array.from(texts, (text) => row.get(text)!) };
}

function embedAll(texts: readonly string[], embed: (text: string) => Float32Array, dims: number): Quantized {
  const data = new Int8Array(texts.length * dims);
  const scales = new Float32Array(texts.length);
  const CHUNK = 4096;
  for (let start = 0; start < texts.length; start += CHUNK) {
    const chunk = quantize(
      texts.slice(start, start + CHUNK).map((text) => embed(text)),
      dims,
    );
    data.set(chunk.data, start * dims);
    scales.set(chunk.scales, start);
  }
  return { dims, count: texts.length, data, scales };
}

/** Document-order rows: each document gets its text's int8 row, as the stage writes vectors.i8. */
function documentRows(distinct: Quantized, rowOfDoc: Uint32Array): Quantized {
  const { dims } = distinct;
  const data = new Int8Array(rowOfDoc.length * dims);
  const scales = new Float32Array(rowOfDoc.length);
  rowOfDoc.forEach((r, doc) => {
    data.set(distinct.data.subarray(r * dims, (r + 1) * dims), doc * dims);
    scales[doc] = distinct.scales[r]!;
  });
  return { dims, count: rowOfDoc.length, data, scales };
}

export function parseSettings(spec: string, count: number): HnswParams[] {
  return spec.split(',').map((item) => {
    const [m, ef] = item.split('/').map(Number);
    if (!Number.isInteger(m) || !Number.isInteger(ef) || m! < 2 || ef! < 1) throw new Error(`BENCH_HNSW_SETTINGS: "${item}" is not connectivity/expansionAdd`);
    return { connectivity: m!, expansionAdd: ef!, expansionSearch: hnswParams(count).expansionSearch };
  });
}

export async function hnswSection(options: { counts: number[]; settings: string; scaleExport(count: number): Promise<string> }): Promise<void> {
  const encoder = await loadStaticEncoder(DEFAULT_ENCODER_DIR);
  const rows: Array<Record<string, string | number>> = [];
  for (const count of options.counts) {
    const path = await options.scaleExport(count);
    const texts = await readTexts(path);
    const { sorted, rowOfDoc } = distinctRows(texts);
    let cpu = cpuSeconds();
    const distinct = embedAll(sorted, (text) => encoder.embed(text), encoder.dims);
    console.log(`${count}: ${sorted.length} distinct texts embedded in ${(cpuSeconds() - cpu).toFixed(1)} s CPU`);
    const exact = new VectorIndex(documentRows(distinct, rowOfDoc), encoder.modelId);
    const requests = recallRequests(path);
    const queries = requests.map((text) => encoder.embed(text));
    cpu = cpuSeconds();
    const exactTop10 = queries.map((q) => exact.search(q, 10).map((hit) => hit.index));
    console.log(`${count}: exact top-10 of ${queries.length} requests in ${(cpuSeconds() - cpu).toFixed(1)} s CPU`);
    for (const params of parseSettings(options.settings, sorted.length)) {
      const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-hnsw-'));
      try {
        const graphDir = join(dir, 'graph');
        const wall = performance.now();
        cpu = cpuSeconds();
        const graph = await writeHnswGraph(graphDir, distinct, encoder.modelId, undefined, params);
        const buildCpu = cpuSeconds() - cpu;
        const buildWall = (performance.now() - wall) / 1000;
        await writeHnswForDocuments(dir, graph, rowOfDoc);
        const ann = (await readHnsw(dir, { modelId: encoder.modelId, count: texts.length }))!;
        const sources = { vectors: exact, ann };
        let found = 0;
        let namedFound = 0;
        const ms: number[] = [];
        queries.forEach((q, i) => {
          const started = performance.now();
          const top = vectorCandidates(sources, q, undefined, SEMANTIC_CANDIDATES).slice(0, 10);
          ms.push(performance.now() - started);
          const got = new Set(top);
          const hits = exactTop10[i]!.filter((doc) => got.has(doc)).length;
          found += hits;
          if (i < RECALL_QUERY_COUNT) namedFound += hits;
        });
        const row = {
          listings: count,
          rows: sorted.length,
          'M / efC / ef': `${params.connectivity} / ${params.expansionAdd} / ${params.expansionSearch}`,
          'build CPU s': buildCpu.toFixed(1),
          'build wall s': buildWall.toFixed(1),
          'CPU µs / row': Math.round((buildCpu / sorted.length) * 1e6),
          'graph MB': (statSync(join(graphDir, HNSW_FILE)).size / 2 ** 20).toFixed(0),
          'recall@10': (found / (10 * queries.length)).toFixed(4),
          'recall@10 named': (namedFound / (10 * RECALL_QUERY_COUNT)).toFixed(3),
          'search p50 ms': percentile(ms, 0.5).toFixed(2),
        };
        console.log(JSON.stringify(row));
        rows.push(row);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  encoder.close();
  console.log(
    `\n## HNSW construction and recall@10 (${SEMANTIC_CANDIDATES} candidates ranked exactly; requests: the named queries and three-word catalog requests)\n`,
  );
  console.log(table(rows));
}
