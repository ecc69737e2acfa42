// Writes a collected export beside its stored files and build-summary.json, the layout `ingest` reads
// (data/: listings.jsonl, files/<slug>/<path>, build-summary.json). Everything is written into a fresh folder
// first; the export is replaced by renames only when its bytes or its files differ, and the previous export and
// files are kept as listings.previous.jsonl-style siblings. A failed write leaves the previous export in place.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { MergedListing } from './merge.ts';

export interface WrittenExport {
  path: string;
  /** False when the new export and its files equal the ones in place (nothing was replaced). */
  changed: boolean;
  listings: number;
  files: number;
  /** SHA-256 of the export's bytes. */
  sha256: string;
  previous?: string;
}

export interface ExportSummary {
  collectedAt: string;
  historyEnd: string;
  counts: Record<string, number>;
  sources: Array<Record<string, unknown>>;
}

/** `dir/name.ext` → `dir/name.previous.ext` */
export function previousPath(path: string): string {
  const name = basename(path);
  const dot = name.indexOf('.');
  return join(dirname(path), dot > 0 ? `${name.slice(0, dot)}.previous${name.slice(dot)}` : `${name}.previous`);
}

/** SHA-256 of the export's lines and of its stored files (slug, path and content), without writing anything. */
function digests(listings: MergedListing[], text: (listing: MergedListing) => string): { sha256: string; files: string; count: number } {
  const exportHash = createHash('sha256');
  const filesHash = createHash('sha256');
  let count = 0;
  for (const listing of listings) {
    exportHash.update(`${text(listing)}\n`);
    for (const file of listing.files) {
      filesHash.update(`${listing.record.slug}/${file.path}\0${file.content}\0`);
      count++;
    }
  }
  return { sha256: exportHash.digest('hex'), files: filesHash.digest('hex'), count };
}

export async function writeCollectedExport(
  out: string,
  listings: MergedListing[],
  text: (listing: MergedListing) => string,
  summary: ExportSummary,
): Promise<WrittenExport> {
  const path = resolve(out);
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const summaryPath = join(dir, 'build-summary.json');
  // Nothing changed upstream (the daily case): the export and its files stay as they are, byte for byte; only the
  // summary moves on, since its collectedAt is the catalog's last update.
  const before = existsSync(summaryPath) ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as { exportSha256?: string; filesSha256?: string }) : undefined;
  const planned = digests(listings, text);
  if (existsSync(path) && before?.exportSha256 === planned.sha256 && before.filesSha256 === planned.files && planned.sha256 === (await sha256File(path))) {
    writeFileSync(
      `${summaryPath}.tmp`,
      `${JSON.stringify({ ...summary, listings: listings.length, files: planned.count, exportSha256: planned.sha256, filesSha256: planned.files }, null, 1)}\n`,
    );
    renameSync(`${summaryPath}.tmp`, summaryPath);
    return { path, changed: false, listings: listings.length, files: planned.count, sha256: planned.sha256 };
  }
  const stage = join(dir, `.collect-${process.pid}-${Date.now()}`);
  mkdirSync(join(stage, 'files'), { recursive: true });
  try {
    const exportHash = createHash('sha256');
    const filesHash = createHash('sha256');
    const stream = createWriteStream(join(stage, 'listings.jsonl'));
    let files = 0;
    for (const listing of listings) {
      const line = `${text(listing)}\n`;
      exportHash.update(line);
      if (!stream.write(line)) await new Promise<void>((done) => stream.once('drain', () => done()));
      for (const file of listing.files) {
        const target = join(stage, 'files', String(listing.record.slug), file.path);
        if (!target.startsWith(join(stage, 'files', String(listing.record.slug)) + '/')) continue;
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, file.content);
        filesHash.update(`${listing.record.slug}/${file.path}\0${file.content}\0`);
        files++;
      }
    }
    await new Promise<void>((done, fail) => stream.end((error?: Error | null) => (error ? fail(error) : done())));
    const sha256 = exportHash.digest('hex');
    const filesDigest = filesHash.digest('hex');
    writeFileSync(
      join(stage, 'build-summary.json'),
      `${JSON.stringify({ ...summary, listings: listings.length, files, exportSha256: sha256, filesSha256: filesDigest }, null, 1)}\n`,
    );
    const previous = previousPath(path);
    if (existsSync(path)) renameSync(path, previous);
    const filesDir = join(dir, 'files');
    const previousFiles = join(dir, 'files.previous');
    if (existsSync(filesDir)) {
      rmSync(previousFiles, { recursive: true, force: true });
      renameSync(filesDir, previousFiles);
    }
    renameSync(join(stage, 'files'), filesDir);
    renameSync(join(stage, 'listings.jsonl'), path);
    renameSync(join(stage, 'build-summary.json'), summaryPath);
    return { path, changed: true, listings: listings.length, files, sha256, ...(existsSync(previous) ? { previous } : {}) };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The build-summary.json beside an export, when there is one. */
export function readSummary(out: string): (Record<string, unknown> & { exportSha256?: string; filesSha256?: string; files?: number }) | undefined {
  const path = join(dirname(resolve(out)), 'build-summary.json');
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { exportSha256?: string };
  } catch {
    return undefined;
  }
}

export function writeSummary(out: string, summary: Record<string, unknown>): void {
  const path = join(dirname(resolve(out)), 'build-summary.json');
  writeFileSync(`${path}.tmp`, `${JSON.stringify(summary, null, 1)}\n`);
  renameSync(`${path}.tmp`, path);
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
