// `catalog export <file>`: the ingested catalog written back in the export format (JSON Lines, .gz when the
// name says so), with its stored files under files/<slug>/ and the history end in build-summary.json beside
// it, so ingest(export(ingest(x))) yields the same listings. Records are written as they were ingested; with
// `withHistory` each carries the whole daily history the store kept instead of the export's own window.
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import { addDays, openCatalogDb, readMeta } from './sqlite-store.ts';

export interface ExportOptions {
  database: string;
  out: string;
  withHistory?: boolean;
  /** Also write files/<slug>/ and build-summary.json beside the export (default true; the shards' export carries neither). */
  beside?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Each line as it is written (without its newline), awaited before the next: the shards stage's change log. */
  onLine?: (line: string) => Promise<void> | void;
}

export interface ExportReport {
  path: string;
  listings: number;
  files: number;
  snapshotHash: string;
  /** The day the history of records without metrics.installsAsOf ends on ('' when none was given). */
  historyEnd: string;
}

interface Row {
  record: string;
  firstDay: string | null;
  daily: string | null;
}

/** A record with the store's full history in place of its own, when that history ends on the record's installs. */
function withStoredHistory(json: string, firstDay: string | null, daily: string | null): string {
  if (!firstDay || !daily) return json;
  const history = JSON.parse(daily) as number[];
  const record = JSON.parse(json) as { installs: number; installsHistory: number[]; metrics: { installsAsOf?: string } };
  if (history.length < 2 || history[history.length - 1] !== record.installs) return json;
  record.installsHistory = history;
  record.metrics.installsAsOf = addDays(firstDay, history.length - 1);
  return JSON.stringify(record);
}

export async function exportCatalog(options: ExportOptions): Promise<ExportReport> {
  const out = resolve(options.out);
  const dir = dirname(out);
  mkdirSync(dir, { recursive: true });
  const db = openCatalogDb(options.database);
  const temp = `${out}.tmp-${process.pid}`;
  try {
    const meta = readMeta(db);
    const total = Number(meta.listings ?? 0);
    const file = createWriteStream(temp);
    let sink: Writable = file;
    if (out.endsWith('.gz')) {
      const gzip = createGzip();
      gzip.pipe(file);
      sink = gzip;
    }
    let listings = 0;
    // The order of data/listings.jsonl: installs desc, id asc. The histories are read only to be written: each is a
    // string of its own as long as the record.
    const rows = db
      .prepare(
        options.withHistory
          ? 'SELECT l.record, h.first_day AS firstDay, h.daily FROM listing l LEFT JOIN install_history h ON h.listing_id = l.id ORDER BY l.installs DESC, l.id ASC'
          : 'SELECT l.record, NULL AS firstDay, NULL AS daily FROM listing l ORDER BY l.installs DESC, l.id ASC',
      )
      .iterate() as Iterable<Row>;
    for (const row of rows) {
      const line = options.withHistory ? withStoredHistory(row.record, row.firstDay, row.daily) : row.record;
      if (!sink.write(line + '\n')) await once(sink, 'drain');
      await options.onLine?.(line);
      if (++listings % 5000 === 0) options.onProgress?.(listings, total);
    }
    sink.end();
    await once(file, 'close');

    let files = 0;
    if (options.beside !== false) {
      const query = db.prepare('SELECT l.slug, f.path, f.content FROM listing_file f JOIN listing l ON l.id = f.listing_id ORDER BY l.slug, f.ord');
      for (const { slug, path, content } of query.iterate() as Iterable<{ slug: string; path: string; content: string }>) {
        const target = join(dir, 'files', slug, path);
        if (!target.startsWith(join(dir, 'files', slug) + '/')) throw new Error(`stored file path ${slug}/${path} leaves the files directory`);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
        files++;
      }

      // Records without metrics.installsAsOf date their history by the export's historyEnd.
      if (meta.historyEnd) {
        const summaryPath = join(dir, 'build-summary.json');
        let summary: Record<string, unknown> = {};
        if (existsSync(summaryPath)) {
          try {
            summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Record<string, unknown>;
          } catch {
            summary = {};
          }
        }
        writeFileSync(summaryPath, JSON.stringify({ ...summary, historyEnd: meta.historyEnd }, null, 1) + '\n');
      }
    }
    renameSync(temp, out);
    options.onProgress?.(listings, total);
    return { path: out, listings, files, snapshotHash: meta.snapshotHash ?? '', historyEnd: meta.historyEnd ?? '' };
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    db.close();
  }
}
