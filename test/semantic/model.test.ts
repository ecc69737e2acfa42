// Guarantees the embeddings stage of the test build (the default stages on the embedded snapshot) leaves the
// distilled encoder in the build, that it places related texts closer than unrelated ones (including everyday
// words the catalog never uses), and vectors for every listing, in document order, made by that encoder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { EMBEDDINGS_DIR, MODEL_SUBDIR } from '../../src/artifacts/embeddings.ts';
import { listingText } from '../../src/embeddings/embedder.ts';
import { readVectors, type VectorsManifest } from '../../src/search/vectors.ts';
import { loadStaticEncoder, type StaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { cosine } from '../embeddings/corpus.ts';

const runtimeDir = join(await sharedBuildDir(), 'runtime');
const embeddingsDir = join(runtimeDir, EMBEDDINGS_DIR);
let encoder: StaticEncoder;

beforeAll(async () => {
  encoder = await loadStaticEncoder(join(embeddingsDir, MODEL_SUBDIR));
});

describe('the embedded default model', () => {
  it('is the distilled Universal Sentence Encoder, loaded offline from the build', () => {
    expect(encoder.modelId).toMatch(/^use-lite-distilled-\d+d-[0-9a-f]{12}$/);
    expect(encoder.dims).toBe(256);
  });

  it.each([
    [
      'something to let my agent query Postgres',
      'MCP server for running SQL queries on a PostgreSQL database',
      'Generate images from text prompts with Stable Diffusion',
    ],
    ['turn a PDF into text', 'Extract text and tables from PDF documents', 'Control Spotify playback and manage playlists'],
    ['post a message to a Slack channel', 'Send messages to Slack channels and search conversations', 'Deploy containers to a Kubernetes cluster'],
    ['will it rain tomorrow', 'Weather forecasts and alerts from the National Weather Service', 'Write unit tests with pytest'],
    [
      'automate a browser to fill web forms',
      'Browser automation with Playwright: navigate pages, fill forms, take screenshots',
      'Track crypto wallet balances',
    ],
  ])('puts "%s" closer to a related listing than to an unrelated one', (query, related, unrelated) => {
    const [q, r, u] = [query, related, unrelated].map((text) => encoder.embed(text));
    expect(cosine(q!, r!)).toBeGreaterThan(cosine(q!, u!) + 0.05);
  });

  it('embeds a text of unknown characters as the zero vector (the keyword fallback case)', () => {
    expect(encoder.embed('ᚠᚢᚦ ᚨᚱ').every((x) => x === 0)).toBe(true);
  });
});

describe('the build’s vectors', () => {
  const manifest = JSON.parse(readFileSync(join(embeddingsDir, 'vectors.json'), 'utf8')) as VectorsManifest;
  const listings = readFileSync(join(runtimeDir, 'listings.jsonl'), 'utf8').split('\n').filter(Boolean);

  it('name the model that made them and hold one row per listing', () => {
    expect(manifest.modelId).toBe(encoder.modelId);
    expect(manifest.dims).toBe(encoder.dims);
    expect(manifest.count).toBe(listings.length);
  });

  it('are in document order: row i is listing i embedded by the model', async () => {
    const index = await readVectors(embeddingsDir, { expectModelId: encoder.modelId });
    const docs = [0, 1, 2, Math.floor(listings.length / 2), listings.length - 1];
    docs.forEach((doc) => {
      const fresh = encoder.embed(listingText(JSON.parse(listings[doc]!) as { name: string; description: string }));
      // int8 rows: within quantization error of the float embedding.
      expect(cosine(index.vector(doc), fresh)).toBeGreaterThan(0.999);
    });
  });
});
