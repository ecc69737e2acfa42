// Guarantees: the tokenizer used for training yields exactly the token ids transformers.js yields from the written tokenizer.json, on the whole catalog and on edge cases.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainStaticModel } from '../../build/embeddings/train-static-model.ts';
import { CLS_ID, SEP_ID, UNK_ID, WordPieceEncoder, buildVocab, words } from '../../build/embeddings/tokenizer.ts';
import { corpusTexts } from './corpus.ts';

let dir: string;
let encoder: WordPieceEncoder;
let runtime: { encode(text: string): number[] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-tokenizer-'));
  // A small model is enough: only the vocabulary matters here.
  await trainStaticModel(corpusTexts(), dir, { dims: 8, oversample: 4 });
  const vocab = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')).model.vocab as Record<string, number>;
  encoder = new WordPieceEncoder(new Map(Object.entries(vocab)));
  env.allowRemoteModels = false;
  runtime = (await AutoTokenizer.from_pretrained(dir, { local_files_only: true })) as unknown as typeof runtime;
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const edgeCases = [
  'Hello [UNK] wörld ÇA va? naïve café [CLS]x [SEP]',
  '日本語のテキスト 中文 한국어 𠀀x',
  'tab\there\nnewline\r\nzero\u0000width\u200bjoiner\ufffd',
  '🚀🔥 emoji-only and ᚠᚢᚦ runes',
  'snake_case camelCase kebab-case dotted.name v1.2.3 #hashtag @mention https://example.com/path?q=1',
  'a'.repeat(150),
  'PostgreSQLMCPServerWithAVeryLongUnseenCompoundWord',
  '',
  '   ',
];

describe('training tokenizer vs transformers.js', () => {
  it('agrees token-for-token on every catalog text', () => {
    const texts = corpusTexts();
    let mismatches = 0;
    for (const t of texts) {
      const ours = [CLS_ID, ...encoder.encode(t), SEP_ID];
      const theirs = runtime.encode(t);
      if (ours.length !== theirs.length || ours.some((x, i) => x !== theirs[i])) mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it.each(edgeCases)('agrees on %j', (t) => {
    expect([CLS_ID, ...encoder.encode(t), SEP_ID]).toEqual(runtime.encode(t));
  });

  it('splits an unseen compound into known pieces instead of [UNK]', () => {
    const ids = encoder.encodeWord('postgresqlmcpserver');
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).not.toContain(UNK_ID);
  });
});

describe('buildVocab', () => {
  it('keeps frequent words, drops rare and punctuation-only ones, and is order-independent', () => {
    const counts = new Map([
      ['database', 5],
      ['postgres', 3],
      ['rare', 1],
      ['-', 50],
      ['🚀', 9],
    ]);
    const a = buildVocab(counts, { maxWords: 10, minCount: 2, maxSubwords: 10 });
    const b = buildVocab(new Map([...counts].reverse()), { maxWords: 10, minCount: 2, maxSubwords: 10 });
    expect(a).toEqual(b);
    expect(a.slice(0, 7)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'database', 'postgres']);
    expect(a).not.toContain('rare');
    expect(a).not.toContain('-');
    expect(a).not.toContain('🚀');
  });

  it('caps whole words at maxWords, most frequent first', () => {
    const counts = new Map(Array.from({ length: 50 }, (_, i) => [`word${String(i).padStart(2, '0')}`, 100 - i] as [string, number]));
    const v = buildVocab(counts, { maxWords: 5, minCount: 2, maxSubwords: 0 });
    expect(v.slice(5, 10)).toEqual(['word00', 'word01', 'word02', 'word03', 'word04']);
    expect(v).not.toContain('word05');
  });

  it('pre-tokenizes like BERT: lowercase, accents stripped, punctuation split', () => {
    expect(words('Hello, Wörld! MCP-server')).toEqual(['hello', ',', 'world', '!', 'mcp', '-', 'server']);
  });
});
