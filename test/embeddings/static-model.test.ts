// Guarantees: a model trained on the real catalog loads through the unmodified transformers.js pipeline offline, ranks related texts above unrelated ones, and embeds unknown-character queries to a detectable zero vector.
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Embedder, MODEL_DIR_ENV, isZero, loadEmbedder, resolveModelDir } from '../../build/embeddings/embedder.ts';
import { MANIFEST_FILE, type ModelManifest, trainStaticModel } from '../../build/embeddings/train-static-model.ts';
import { corpusTexts, cosine } from './corpus.ts';

let dir: string;
let manifest: ModelManifest;
let trainMs: number;
let embedder: Embedder;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-static-model-'));
  const texts = corpusTexts();
  const t = performance.now();
  ({ manifest } = await trainStaticModel(texts, dir));
  trainMs = performance.now() - t;
  embedder = await loadEmbedder(dir);
}, 180_000);

afterAll(async () => {
  await embedder?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('trained model directory', () => {
  it('has the Transformers.js layout and a manifest describing it', async () => {
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', MANIFEST_FILE]) {
      expect((await stat(join(dir, f))).size).toBeGreaterThan(0);
    }
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(config.model_type).toBe('bert');
    const tokConfig = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8'));
    expect(tokConfig.pad_token).toBe('[PAD]');
    const tok = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8'));
    expect(tok.model.type).toBe('WordPiece');
    expect([tok.model.vocab['[PAD]'], tok.model.vocab['[UNK]'], tok.model.vocab['[CLS]'], tok.model.vocab['[SEP]']]).toEqual([0, 1, 2, 3]);
    const onDisk = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8'));
    expect(onDisk).toEqual(manifest);
    expect(manifest.dims).toBe(256);
    expect(manifest.corpus.documents).toBe(corpusTexts().length);
    expect(manifest.vocabSize).toBe(Object.keys(tok.model.vocab).length);
    expect(manifest.modelId).toContain(manifest.contentHash.slice(0, 12));
    expect(trainMs).toBeLessThan(60_000);
  });

  it('is an ONNX graph from input_ids and attention_mask to last_hidden_state', async () => {
    const session = await ort.InferenceSession.create(join(dir, 'onnx/model.onnx'));
    expect([...session.inputNames].sort()).toEqual(['attention_mask', 'input_ids']);
    expect(session.outputNames).toEqual(['last_hidden_state']);
    const ids = new ort.Tensor('int64', BigInt64Array.from([2n, 10n, 11n, 3n, 0n, 2n, 12n, 3n, 0n, 0n]), [2, 5]);
    const mask = new ort.Tensor('int64', BigInt64Array.from([1n, 1n, 1n, 1n, 0n, 1n, 1n, 1n, 0n, 0n]), [2, 5]);
    const { last_hidden_state: hidden } = await session.run({ input_ids: ids, attention_mask: mask });
    expect(hidden?.dims).toEqual([2, 5, 256]);
    const data = hidden?.data as Float32Array;
    // [CLS], [SEP] and [PAD] rows are zero; content tokens are not.
    expect(data.subarray(0, 256).every((x) => x === 0)).toBe(true);
    expect(data.subarray(256, 512).some((x) => x !== 0)).toBe(true);
    expect(data.subarray(4 * 256, 5 * 256).every((x) => x === 0)).toBe(true);
    await session.release();
  });
});

describe('loadEmbedder on the trained model', () => {
  it('reports identity and dimensions from the manifest', () => {
    expect(embedder.modelId).toBe(manifest.modelId);
    expect(embedder.dims).toBe(256);
    expect(embedder.kind).toBe('catalog-static');
    expect(env.allowRemoteModels).toBe(false);
  });

  it('returns unit vectors in input order', async () => {
    const texts = ['a long text about postgres databases and sql queries', 'slack', 'kubernetes deployment'];
    const one = await embedder.embed(texts);
    const each = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]));
    for (let i = 0; i < texts.length; i++) {
      expect(Math.sqrt(cosine(one[i]!, one[i]!))).toBeCloseTo(1, 5);
      expect(cosine(one[i]!, each[i]!)).toBeCloseTo(1, 5);
    }
  });

  it('matches the pipeline’s own mean pooling + normalization', async () => {
    const texts = ['PostgreSQL MCP server', 'generate images from text prompts with FLUX', 'browser automation testing'];
    const extractor = await pipeline('feature-extraction', dir, { local_files_only: true });
    const reference = await extractor(texts, { pooling: 'mean', normalize: true });
    const ours = await embedder.embed(texts);
    const d = embedder.dims;
    for (let i = 0; i < texts.length; i++) {
      const ref = (reference.data as Float32Array).subarray(i * d, (i + 1) * d);
      expect(cosine(ours[i]!, ref)).toBeCloseTo(1, 5);
    }
    await extractor.dispose();
  });

  it.each([
    ['postgres database', 'PostgreSQL MCP server', 'image generation'],
    ['send a message to a slack channel', 'Slack integration: post messages to channels', 'Kubernetes cluster deployment'],
    ['generate images from text prompts', 'text-to-image generation with Stable Diffusion', 'SQL query optimizer'],
    ['browser automation', 'Playwright web testing and scraping', 'bitcoin price tracker'],
  ])('"%s" is closer to "%s" than to "%s"', async (query, related, unrelated) => {
    const [q, r, u] = (await embedder.embed([query, related, unrelated])) as [Float32Array, Float32Array, Float32Array];
    expect(cosine(q, r)).toBeGreaterThan(cosine(q, u) + 0.1);
  });

  it.each(['ᚠᚢᚦ', '🚀🔥✨', '   ', ''])('embeds %j (no known token) to the zero vector', async (text) => {
    const [v] = (await embedder.embed([text])) as [Float32Array];
    expect(v.length).toBe(256);
    expect(embedder.isZero(v)).toBe(true);
    expect(Number.isNaN(v[0])).toBe(false);
  });

  it('does not flag ordinary queries as zero', async () => {
    const [v] = (await embedder.embed(['github pull request review'])) as [Float32Array];
    expect(isZero(v)).toBe(false);
  });
});

describe('loadEmbedder on any Transformers.js model directory', () => {
  it('loads a directory without the catalog manifest (as for all-MiniLM-L6-v2) through the same path', async () => {
    const plain = `${dir}-plain`;
    await cp(dir, plain, { recursive: true });
    await rm(join(plain, MANIFEST_FILE));
    try {
      const other = await loadEmbedder(plain);
      expect(other.kind).toBe('pretrained');
      expect(other.dims).toBe(256); // probed from an embedding, not read from a manifest
      expect(other.modelId).toMatch(/-plain$/);
      const [a] = (await other.embed(['postgres database'])) as [Float32Array];
      const [b] = (await embedder.embed(['postgres database'])) as [Float32Array];
      expect(cosine(a, b)).toBeCloseTo(1, 5);
      await other.dispose();
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('fails with a clear error, without any download attempt, when the directory has no model', async () => {
    await expect(loadEmbedder(join(dir, 'missing'))).rejects.toThrow(/no embedding model/);
  });

  it('takes the operator-configured directory from CATALOG_EMBEDDING_MODEL_DIR', () => {
    expect(MODEL_DIR_ENV).toBe('CATALOG_EMBEDDING_MODEL_DIR');
    expect(resolveModelDir('/default/model', { [MODEL_DIR_ENV]: '/srv/models/all-MiniLM-L6-v2' })).toBe('/srv/models/all-MiniLM-L6-v2');
    expect(resolveModelDir('/default/model', { [MODEL_DIR_ENV]: '  ' })).toBe('/default/model');
    expect(resolveModelDir('/default/model', {})).toBe('/default/model');
  });
});
