// An export given as an http(s) URL: downloaded to a temp directory first, with what the ingest reads beside
// it (build-summary.json and each record's stored files/<slug>/<path>, fetched relative to the export's URL),
// so the ingest itself only ever reads local files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SLUG_PATTERN } from '../../src/domain/schemas.ts';
import { readExport } from '../export-reader.ts';

export class DownloadError extends Error {}

export function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

async function get(url: string): Promise<Buffer | undefined> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new DownloadError(`GET ${url} failed: ${(error as Error).message}`);
  }
  if (response.status === 404) return undefined;
  if (!response.ok) throw new DownloadError(`GET ${url} answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

export interface DownloadedExport {
  path: string;
  files: number;
  cleanup(): void;
}

export async function downloadExport(url: string, onProgress?: (done: number, total: number) => void): Promise<DownloadedExport> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-export-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const parsed = new URL(url);
    // The name keeps its extension (.jsonl, .json.gz, .yaml) for format detection; without one, the content decides.
    const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'export').replace(/[^A-Za-z0-9._-]/g, '_') || 'export';
    const body = await get(url);
    if (!body) throw new DownloadError(`GET ${url} answered 404`);
    const path = join(dir, name);
    writeFileSync(path, body);

    const base = new URL('.', parsed);
    const summary = await get(new URL('build-summary.json', base).href);
    if (summary) writeFileSync(join(dir, 'build-summary.json'), summary);

    const wanted: Array<[string, string]> = [];
    for await (const { value } of readExport(path)) {
      const record = value as { slug?: unknown; files?: unknown } | undefined;
      if (typeof record?.slug !== 'string' || !SLUG_PATTERN.test(record.slug) || !Array.isArray(record.files)) continue;
      for (const file of record.files) {
        // Anything else is refused by the ingest as a missing file, with its line.
        if (typeof file === 'string' && !file.startsWith('/') && !file.split('/').includes('..')) wanted.push([record.slug, file]);
      }
    }
    let files = 0;
    for (const [slug, file] of wanted) {
      const content = await get(new URL(`files/${slug}/${file.split('/').map(encodeURIComponent).join('/')}`, base).href);
      if (content) {
        const target = join(dir, 'files', slug, file);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
        files++;
      }
      onProgress?.(files, wanted.length);
    }
    return { path, files, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}
