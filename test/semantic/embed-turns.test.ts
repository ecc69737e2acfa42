// Guarantees the embeddings stage gives the event loop a turn between chunks of texts it embeds (the distilled
// encoder runs on the build's own thread): the stages beside it and the progress lines go on during a large catalog's
// embedding.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEmbeddings, EMBED_CHUNK } from '../../build/stages/embeddings-stage.ts';
import { RUNTIME_LISTINGS_FILE } from '../../src/artifacts/runtime-manifest.ts';
import { sharedBuildDir } from '../support/shared-build.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalog-embed-turns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the embeddings stage on a large catalog', () => {
  it('lets an immediate queued at one progress report run before the next chunk is embedded', async () => {
    const runtimeDir = join(dir, 'runtime');
    mkdirSync(runtimeDir);
    copyFileSync(join(await sharedBuildDir(), 'runtime', RUNTIME_LISTINGS_FILE), join(runtimeDir, RUNTIME_LISTINGS_FILE));
    const reports: number[] = [];
    const turns: boolean[] = [];
    let turned: boolean | undefined;
    const report = await buildEmbeddings({
      runtimeDir,
      cacheDir: join(dir, 'cache'),
      progress: (done) => {
        reports.push(done);
        if (turned !== undefined) turns.push(turned);
        turned = false;
        setImmediate(() => (turned = true));
      },
    });
    expect(report.embedded).toBeGreaterThan(2 * EMBED_CHUNK);
    expect(reports.length).toBe(Math.ceil(report.embedded / EMBED_CHUNK));
    expect(turns.length).toBe(reports.length - 1);
    expect(turns.every(Boolean)).toBe(true);
  }, 120_000);
});
