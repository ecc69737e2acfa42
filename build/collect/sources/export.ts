// The `export` source: an existing export (the embedded snapshot is one) read as candidates, so the data the catalog
// holds today stays a source. Each record passes through whole (`record`); its stored files come from the
// export's files/ folder. An unreadable export fails the source; a record that is not JSON is a warning.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ExportSource } from '../sources-file.ts';
import { detectExportFormat, readExport, type ExportLine } from '../../export-reader.ts';
import { LineFile } from '../line-file.ts';
import { detach } from '../text.ts';
import { emptyStats, type Candidate, type ListingSourceResult, type SourceContext } from '../types.ts';
import type { ListingType } from '../../../src/domain/listing/listing-types.ts';

export async function collectExportSource(entry: ExportSource & { id: string }, ctx: SourceContext): Promise<ListingSourceResult> {
  const stats = emptyStats();
  const path = resolve(entry.url);
  if (!existsSync(path)) return { status: 'failed', error: `no export at ${path}`, candidates: [], removed: [], absenceIsRemoval: false, stats };
  const filesDir = join(dirname(path), 'files');
  const candidates: Candidate[] = [];
  // JSON Lines (the export format) is read by line offsets and each record's text read again while it is merged;
  // a JSON array or YAML list is held as text.
  const lines = (await detectExportFormat(path)) === 'jsonl' && !path.endsWith('.gz') ? await LineFile.open(path) : undefined;
  if (lines) ctx.defer?.(() => lines.close());
  const entries = lines ? lineEntries(lines) : readExport(path);
  try {
    let index = -1;
    for await (const line of entries) {
      index++;
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      const record = line.value as Record<string, unknown> | undefined;
      if (
        line.parseError ||
        !record ||
        typeof record !== 'object' ||
        typeof record.type !== 'string' ||
        typeof record.repo !== 'string' ||
        typeof record.name !== 'string'
      ) {
        stats.warnings.push({ where: `${path}:${line.line}`, message: line.parseError ?? 'not a listing record (type, repo and name are required); skipped' });
        continue;
      }
      const source = (record.source ?? {}) as { repo?: string; path?: string };
      const ownFile = source.repo?.toLowerCase() === record.repo.toLowerCase() ? source.path : undefined;
      const files = Array.isArray(record.files) ? readFiles(filesDir, String(record.slug), record.files as string[], stats, `${path}:${line.line}`) : undefined;
      // Only what identity reads (identity.ts) is kept as values, each detached from its line; the rest of the record
      // travels as text.
      const text = (field: string) => (typeof record[field] === 'string' ? detach(record[field] as string) : undefined);
      const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
      const candidate: Candidate = { type: record.type as ListingType, name: detach(record.name), repo: detach(record.repo) };
      const filePath = record.type === 'skill' || record.type === 'workflow' ? detach(ownFile) : undefined;
      if (filePath) candidate.path = filePath;
      for (const field of ['registryName', 'installCommand', 'homepage'] as const) {
        const value = text(field);
        if (value !== undefined) candidate[field] = value;
      }
      if (record.packages) candidate.packages = copy(record.packages as Candidate['packages']);
      if (record.remotes) candidate.remotes = copy(record.remotes as Candidate['remotes']);
      candidates.push({
        ...candidate,
        recordId: text('id'),
        ...(lines ? { recordAt: lineReader(lines, index) } : { recordJson: JSON.stringify(record) }),
        files,
      });
    }
  } catch (error) {
    return { status: 'failed', error: `cannot read export ${path}: ${(error as Error).message}`, candidates: [], removed: [], absenceIsRemoval: false, stats };
  }
  return { status: 'ok', candidates, removed: [], absenceIsRemoval: true, stats };
}

function readFiles(dir: string, slug: string, paths: string[], stats: ListingSourceResult['stats'], where: string): Candidate['files'] {
  const files: NonNullable<Candidate['files']> = [];
  for (const path of paths) {
    const full = join(dir, slug, path);
    if (path.includes('..') || !existsSync(full)) {
      stats.warnings.push({ where, message: `stored file ${slug}/${path} is missing; the listing is kept without it` });
      continue;
    }
    files.push({ path, content: readFileSync(full, 'utf8') });
  }
  return files.length && files[0]!.path === 'SKILL.md' ? files : undefined;
}

/** The lines of an indexed JSON Lines file as the export reader gives them (1-based line numbers of records). */
function* lineEntries(lines: LineFile): Generator<ExportLine> {
  for (let index = 0; index < lines.count; index++) {
    const text = lines.read(index);
    try {
      yield { line: index + 1, value: JSON.parse(text) };
    } catch (error) {
      yield { line: index + 1, parseError: `not JSON (${(error as Error).message})` };
    }
  }
}

/** Made out here so the closure holds the file and the line number only, not the loop's parsed record. */
function lineReader(lines: LineFile, index: number): () => string {
  return () => lines.read(index);
}
