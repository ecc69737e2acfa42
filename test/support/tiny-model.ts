// A small embedding model in the Transformers.js layout, made by the tests themselves (nothing downloaded):
// a WordPiece vocabulary of the given texts' words and an ONNX Gather graph whose rows are seeded random
// vectors, so related texts share words and land closer. It stands in for an operator's pretrained model
// (CATALOG_EMBEDDING_MODEL_DIR) and runs the same transformers.js loader and worker.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gaussianFill } from '../../src/search/random.ts';
import { staticEmbeddingOnnx } from './onnx-writer.ts';
import { buildVocab, tokenizerConfigJson, tokenizerJson, words } from './wordpiece.ts';

export async function writeTinyModel(outDir: string, texts: readonly string[], dims = 32): Promise<{ modelId: string; dims: number }> {
  const counts = new Map<string, number>();
  for (const text of texts) for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const vocab = buildVocab(counts, { maxWords: 5000, minCount: 1, maxSubwords: 200 });
  const table = new Float32Array(vocab.length * dims);
  const noise = new Float64Array(vocab.length * dims);
  gaussianFill(noise, 11);
  // Special tokens ([PAD] [UNK] [CLS] [SEP] [MASK]) embed to zero, as in the static model this replaced.
  for (let i = 5 * dims; i < table.length; i++) table[i] = noise[i]!;
  const modelId = `tiny-test-model-${createHash('sha256').update(vocab.join('\n')).digest('hex').slice(0, 12)}`;
  const json = (o: unknown) => `${JSON.stringify(o, null, 2)}\n`;
  await mkdir(join(outDir, 'onnx'), { recursive: true });
  await writeFile(
    join(outDir, 'config.json'),
    json({
      _name_or_path: modelId,
      architectures: ['BertModel'],
      model_type: 'bert',
      vocab_size: vocab.length,
      hidden_size: dims,
      num_hidden_layers: 0,
      num_attention_heads: 1,
      intermediate_size: dims,
      max_position_embeddings: 512,
      type_vocab_size: 1,
      pad_token_id: 0,
      'transformers.js_config': { dtype: 'fp32' },
    }),
  );
  await writeFile(join(outDir, 'tokenizer.json'), json(tokenizerJson(vocab)));
  await writeFile(join(outDir, 'tokenizer_config.json'), json(tokenizerConfigJson(512)));
  await writeFile(
    join(outDir, 'special_tokens_map.json'),
    json({ unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]' }),
  );
  await writeFile(join(outDir, 'onnx', 'model.onnx'), staticEmbeddingOnnx(table, vocab.length, dims, 'tiny-test-model'));
  return { modelId, dims };
}
