// Guarantees the one writer of a build's runtime/: nothing lands outside it, folders are made as needed, a folder
// handed to a format's own writer starts empty, trees arrive by hard link, and the manifest it records passes the
// schema the shim reads it with.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuntimeWriter } from '../../build/runtime-writer.ts';
import { readRuntimeManifest, RUNTIME_FORMAT, type RuntimeManifest } from '../../src/artifacts/runtime-manifest.ts';
import { tempDir } from '../support/fixtures.ts';

const writer = () => new RuntimeWriter(join(tempDir(), 'runtime'));

describe('RuntimeWriter', () => {
  it.each(['../escape.json', 'files/../../escape.json', '', '/'])('refuses %j', (path) => {
    expect(() => writer().write(path, 'x')).toThrow(/refusing to write outside the runtime/);
  });

  it('writes files and streams under runtime/, making their folders', async () => {
    const out = writer();
    out.write('files/7.json', '[]');
    out.write('/ids.txt', 'a\nb');
    const stream = out.stream('listings.jsonl');
    stream.end('{"id":"a"}\n');
    await once(stream, 'close');
    expect(readFileSync(join(out.root, 'files', '7.json'), 'utf8')).toBe('[]');
    expect(readFileSync(join(out.root, 'ids.txt'), 'utf8')).toBe('a\nb');
    expect(readFileSync(join(out.root, 'listings.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
  });

  it('hands out an empty folder and links a tree into it', async () => {
    const out = writer();
    out.write('embeddings/stale.bin', 'old');
    const folder = out.folder('embeddings');
    expect(existsSync(join(folder, 'stale.bin'))).toBe(false);
    const model = join(tempDir(), 'model');
    mkdirSync(join(model, 'onnx'), { recursive: true });
    writeFileSync(join(model, 'config.json'), '{}');
    writeFileSync(join(model, 'onnx', 'model.onnx'), 'weights');
    await out.linkTree(model, 'embeddings/model');
    expect(readFileSync(join(folder, 'model', 'onnx', 'model.onnx'), 'utf8')).toBe('weights');
    expect(statSync(join(folder, 'model', 'config.json')).ino).toBe(statSync(join(model, 'config.json')).ino);
  });

  it('records a manifest the shim reads back, and refuses one that does not pass the schema', () => {
    const out = writer();
    const none = { skill: 0, marketplace: 0, plugin: 0, mcp: 0, workflow: 0 };
    const stats = {
      total: 0,
      byType: none,
      installs: 0,
      installsByType: none,
      realInstalls: none,
      realStars: none,
      realMetrics: none,
      estimated: { installs: 0, listings: 0 },
      updatedAt: '2026-01-01T00:00:00Z',
    };
    const manifest: RuntimeManifest = {
      format: RUNTIME_FORMAT,
      snapshotHash: 'h',
      lastUpdated: '2026-01-01T00:00:00Z',
      count: 0,
      columns: {},
      filesStored: 0,
      stats,
      categories: [],
    };
    expect(() => out.recordManifest({ ...manifest, count: -1 })).toThrow();
    expect(existsSync(join(out.root, 'manifest.json'))).toBe(false);
    out.recordManifest(manifest);
    expect(readRuntimeManifest(out.root)).toEqual(manifest);
  });
});
