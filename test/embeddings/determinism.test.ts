// Guarantees: training is deterministic — the same texts and options give byte-identical model files and the same content hash; other input gives another hash; degenerate corpora still give a loadable, NaN-free model.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder } from '../../build/embeddings/embedder.ts';
import { MANIFEST_FILE, trainStaticModel, type TrainResult } from '../../build/embeddings/train-static-model.ts';
import { corpusTexts } from './corpus.ts';

const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model.onnx', MANIFEST_FILE];
const OPTIONS = { dims: 64 };

let root: string;
let first: TrainResult;
let second: TrainResult;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'catalog-determinism-'));
  // Every third listing: the full pipeline (vocab, PPMI, randomized SVD) on ~10k real documents.
  const texts = corpusTexts(3);
  first = await trainStaticModel(texts, join(root, 'a'), OPTIONS);
  // An iterable (not an array) must behave the same.
  second = await trainStaticModel(
    (function* () {
      yield* texts;
    })(),
    join(root, 'b'),
    OPTIONS,
  );
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('trainStaticModel determinism', () => {
  it('gives the same content hash and model id twice', () => {
    expect(second.manifest.contentHash).toBe(first.manifest.contentHash);
    expect(second.manifest.modelId).toBe(first.manifest.modelId);
  });

  it.each(FILES)('writes byte-identical %s', async (file) => {
    const a = await readFile(join(root, 'a', file));
    const b = await readFile(join(root, 'b', file));
    expect(a.equals(b)).toBe(true);
  });

  it('changes the hash when the corpus changes', async () => {
    const other = await trainStaticModel(corpusTexts(3).slice(1), join(root, 'c'), OPTIONS);
    expect(other.manifest.contentHash).not.toBe(first.manifest.contentHash);
    expect(other.manifest.corpus.sha256).not.toBe(first.manifest.corpus.sha256);
  }, 120_000);
});

describe('trainStaticModel on degenerate corpora', () => {
  it.each([
    ['empty', []],
    ['single document', ['hello world']],
    ['handful', ['postgres database server', 'postgres sql database', 'image generation model', 'image diffusion model', 'hello']],
  ])('%s: writes a model that loads and embeds without NaN', async (name, texts) => {
    const out = join(root, `tiny-${name.replace(/\W/g, '-')}`);
    const { manifest } = await trainStaticModel(texts, out, { dims: 16, minCount: 1 });
    expect(manifest.corpus.documents).toBe(texts.length);
    const embedder = await loadEmbedder(out);
    const vecs = await embedder.embed(['postgres database', 'image', 'ᚠᚢᚦ']);
    for (const v of vecs) expect(v.some(Number.isNaN)).toBe(false);
    expect(embedder.isZero(vecs[2] ?? new Float32Array(1))).toBe(true);
    await embedder.dispose();
  }, 60_000);
});
