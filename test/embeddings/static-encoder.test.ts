// Guarantees the committed default encoder (models/use-lite-distilled) is what its manifest says: rows of the
// Universal Sentence Encoder shipped in the npm package, re-embedded here with the real encoder (offline) and
// projected as the distillation did, and that the runtime embedding behaves (zero for unknown text, camelCase
// parts, checksums refused when tampered).
import { cp, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUseEncoder } from '../../build/stages/embeddings/use-encoder.ts';
import {
  DEFAULT_ENCODER_DIR,
  loadStaticEncoder,
  readProjection,
  readStaticEncoderManifest,
  ROW_CACHE_SIZE,
  type StaticEncoder,
} from '../../src/embeddings/static-encoder.ts';
import { cosine } from './corpus.ts';

let encoder: StaticEncoder;
beforeAll(async () => {
  encoder = await loadStaticEncoder(DEFAULT_ENCODER_DIR);
});

describe('the distilled encoder table', () => {
  it('holds rows of the Universal Sentence Encoder: a sample of words re-embedded with it matches', async () => {
    const manifest = await readStaticEncoderManifest(DEFAULT_ENCODER_DIR);
    const { mean, axes } = await readProjection(DEFAULT_ENCODER_DIR, manifest);
    const teacher = await loadUseEncoder();
    // Catalog words, everyday words the catalog never uses, and rare dictionary words.
    const sample = ['postgres', 'weather', 'rain', 'workbook', 'spreadsheet', 'airfare', 'kubernetes', 'aloud', 'zygote', 'the'];
    const rows = await teacher.embed(sample.map((word) => manifest.template!.replace('{w}', word)));
    sample.forEach((word, i) => {
      const projected = new Float32Array(manifest.dims);
      for (let c = 0; c < manifest.dims; c++) {
        let s = 0;
        for (let j = 0; j < mean.length; j++) s += (rows[i]![j]! - mean[j]!) * axes[c]![j]!;
        projected[c] = s;
      }
      const row = encoder.wordVector(word);
      expect(row, word).toBeDefined();
      expect(cosine(row!, projected), word).toBeGreaterThan(0.99);
    });
  }, 120_000);

  it('knows everyday words the catalog never uses, and splits unknown camelCase tokens into known parts', () => {
    for (const word of ['rain', 'workbook', 'spreadsheet', 'airfare']) expect(encoder.wordVector(word), word).toBeDefined();
    expect(encoder.rows('PostgresServer')).toEqual(encoder.rows('postgres server'));
  });

  it('embeds a text to a unit vector, and text without known words to zeros', () => {
    const v = encoder.embed('check the weather forecast');
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(encoder.embed('ᚠᚢᚦ ᚨᚱ !!!').every((x) => x === 0)).toBe(true);
    expect(encoder.embed('').every((x) => x === 0)).toBe(true);
  });

  describe('read from disk (as the shim reads it)', () => {
    let onDisk: StaticEncoder;
    let words: string[];
    beforeAll(async () => {
      onDisk = await loadStaticEncoder(DEFAULT_ENCODER_DIR, { rows: 'disk' });
      words = (await readFile(join(DEFAULT_ENCODER_DIR, 'words.txt'), 'utf8')).split('\n').filter(Boolean);
    });
    afterAll(() => onDisk.close());

    it('embeds exactly as the table in memory, also after more distinct words than it keeps', () => {
      expect(words.length).toBeGreaterThan(2 * ROW_CACHE_SIZE);
      const texts = ['check the weather forecast', 'PostgresServer backups', 'open a workbook and recalculate the totals'];
      for (const text of texts) expect(onDisk.embed(text), text).toEqual(encoder.embed(text));
      // Every word once (evicting the first ones), then the first ones again: read back from the file.
      for (let i = 0; i < words.length; i += 3) expect(onDisk.wordVector(words[i]!), words[i]).toEqual(encoder.wordVector(words[i]!));
      for (const text of texts) expect(onDisk.embed(text), text).toEqual(encoder.embed(text));
    });

    it('embeds to zeros once closed, so a search falls back rather than failing', async () => {
      const closing = await loadStaticEncoder(DEFAULT_ENCODER_DIR, { rows: 'disk' });
      expect(closing.embed('weather forecast').some((x) => x !== 0)).toBe(true);
      closing.close();
      closing.close();
      expect(closing.embed('weather forecast').every((x) => x === 0)).toBe(true);
      expect(closing.wordVector('weather')).toBeUndefined();
    });
  });

  describe('a tampered copy', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'catalog-encoder-'));
      await cp(DEFAULT_ENCODER_DIR, dir, { recursive: true });
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('is refused when a row changed, whether read into memory or from disk', async () => {
      const table = await open(join(dir, 'table.i8'), 'r+');
      const byte = Buffer.alloc(1);
      await table.read(byte, 0, 1, 1000);
      await table.write(Buffer.of(byte[0]! ^ 1), 0, 1, 1000);
      await table.close();
      await expect(loadStaticEncoder(dir)).rejects.toThrow(/checksum/);
      await expect(loadStaticEncoder(dir, { rows: 'disk' })).rejects.toThrow(/checksum/);
    });

    it('is refused when its word list changed', async () => {
      await writeFile(join(dir, 'words.txt'), 'tampered\n');
      await expect(loadStaticEncoder(dir)).rejects.toThrow(/checksum/);
      await expect(loadStaticEncoder(dir, { rows: 'disk' })).rejects.toThrow(/checksum/);
    });
  });
});
