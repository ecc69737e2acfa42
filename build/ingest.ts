// Ingest: a snapshot export (JSON Lines) → a fresh SQLite database, validated record by record.
// The new database is written beside the old one and renamed over it only when every step succeeded, so a
// failed ingest leaves the previous database untouched. Output depends only on the input (and the previous
// database's history), so re-running on the same input yields a byte-identical file.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ListingRecordSchema, type ListingRecord } from '../src/domain/schemas.ts';
import { readExportLines } from './export-reader.ts';
import { addDays, mergeHistory, SCHEMA, SCHEMA_VERSION } from './catalog-db.ts';
import { mediaTypeOf } from './media-types.ts';

export interface Reject {
  file: string;
  line: number;
  id?: string;
  reason: string;
}

export interface IngestReport {
  database: string;
  listings: number;
  files: number;
  historyRows: number;
  rejected: Reject[];
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  snapshotHash: string;
  lastUpdated: string;
}

export interface IngestOptions {
  exportPath: string;
  database: string;
  /** Directory holding files/<slug>/<path>; defaults to the export's directory. */
  filesDir?: string;
  skipInvalid?: boolean;
  rejectsPath?: string;
  /** Day (YYYY-MM-DD) of the last history value when a record has no metrics.installsAsOf. */
  historyEnd?: string;
}

export class IngestError extends Error {
  readonly rejects: Reject[];
  constructor(message: string, rejects: Reject[]) {
    super(message);
    this.name = 'IngestError';
    this.rejects = rejects;
  }
}

function describeIssues(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'record'}: ${issue.message}`)
    .join('; ');
}

/** The export's own history end: build-summary.json's historyEnd next to it, when there is one. */
function defaultHistoryEnd(exportPath: string): string | undefined {
  const summary = join(dirname(exportPath), 'build-summary.json');
  if (!existsSync(summary)) return undefined;
  try {
    const value = JSON.parse(readFileSync(summary, 'utf8')).historyEnd;
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface Accepted {
  record: ListingRecord;
  json: string;
}

export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const exportPath = resolve(options.exportPath);
  const database = resolve(options.database);
  const filesDir = options.filesDir ?? join(dirname(exportPath), 'files');
  const historyEnd = options.historyEnd ?? defaultHistoryEnd(exportPath);

  const rejects: Reject[] = [];
  const accepted: Accepted[] = [];
  const seenIds = new Set<string>();
  const seenSlugs = new Set<string>();
  const hash = createHash('sha256');
  for await (const { line, value, parseError } of readExportLines(exportPath)) {
    if (parseError) {
      rejects.push({ file: exportPath, line, reason: parseError });
      continue;
    }
    const parsed = ListingRecordSchema.safeParse(value);
    const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
    if (!parsed.success) {
      rejects.push({ file: exportPath, line, id, reason: describeIssues(parsed.error) });
      continue;
    }
    const record = parsed.data;
    if (seenIds.has(record.id)) {
      rejects.push({ file: exportPath, line, id, reason: `duplicate id ${record.id}` });
      continue;
    }
    if (seenSlugs.has(record.slug)) {
      rejects.push({ file: exportPath, line, id, reason: `duplicate slug ${record.slug}` });
      continue;
    }
    for (const path of record.files ?? []) {
      const full = join(filesDir, record.slug, path);
      if (path.includes('..') || !existsSync(full)) {
        rejects.push({ file: exportPath, line, id, reason: `stored file ${record.slug}/${path} is missing` });
        break;
      }
    }
    if (rejects.length && rejects[rejects.length - 1]!.line === line) continue;
    if (!record.metrics.installsAsOf && !historyEnd) {
      rejects.push({ file: exportPath, line, id, reason: 'metrics.installsAsOf missing and no history end date given (--history-end)' });
      continue;
    }
    seenIds.add(record.id);
    seenSlugs.add(record.slug);
    const json = JSON.stringify(value);
    hash.update(json).update('\n');
    accepted.push({ record, json });
  }

  if (rejects.length && !options.skipInvalid) {
    throw new IngestError(`${rejects.length} invalid record(s) in ${exportPath}; nothing was written`, rejects);
  }
  if (options.rejectsPath) {
    writeFileSync(options.rejectsPath, rejects.map((r) => JSON.stringify(r)).join('\n') + (rejects.length ? '\n' : ''));
  }
  if (accepted.length === 0) throw new IngestError(`no valid records in ${exportPath}; nothing was written`, rejects);

  // Deterministic order: the database's bytes depend only on the content.
  accepted.sort((a, b) => (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));

  mkdirSync(dirname(database), { recursive: true });
  const temp = `${database}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  let previous: Database.Database | undefined;
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    if (existsSync(database)) previous = new Database(database, { readonly: true, fileMustExist: true });

    const previousRecords = new Map<string, string>();
    if (previous) {
      for (const row of previous.prepare('SELECT id, record FROM listing').iterate() as Iterable<{ id: string; record: string }>)
        previousRecords.set(row.id, row.record);
    }
    const previousHistory = previous?.prepare('SELECT first_day AS firstDay, daily FROM install_history WHERE listing_id = ?');

    const insertListing = db.prepare('INSERT INTO listing (id, slug, type, installs, stars, record) VALUES (?, ?, ?, ?, ?, ?)');
    const insertFile = db.prepare('INSERT INTO listing_file (listing_id, ord, path, size, media_type, content) VALUES (?, ?, ?, ?, ?, ?)');
    const insertHistory = db.prepare('INSERT INTO install_history (listing_id, first_day, daily) VALUES (?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');

    let files = 0;
    let historyRows = 0;
    let added = 0;
    let changed = 0;
    let unchanged = 0;
    let lastUpdated = '';
    db.transaction(() => {
      for (const { record, json } of accepted) {
        const before = previousRecords.get(record.id);
        if (before === undefined) added++;
        else if (before === json) unchanged++;
        else changed++;
        insertListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        if (record.updatedAt > lastUpdated) lastUpdated = record.updatedAt;

        (record.files ?? []).forEach((path, ord) => {
          const content = readFileSync(join(filesDir, record.slug, path), 'utf8');
          insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
          files++;
        });

        // History: the days the previous database knew, overwritten by the days this export states.
        const end = record.metrics.installsAsOf ?? historyEnd!;
        const stated = { firstDay: addDays(end, -(record.installsHistory.length - 1)), daily: record.installsHistory };
        const row = previousHistory?.get(record.id) as { firstDay: string; daily: string } | undefined;
        const merged = mergeHistory(row && { firstDay: row.firstDay, daily: JSON.parse(row.daily) as number[] }, stated);
        insertHistory.run(record.id, merged.firstDay, JSON.stringify(merged.daily));
        historyRows += merged.daily.length;
      }
      const snapshotHash = hash.digest('hex');
      insertMeta.run('schemaVersion', String(SCHEMA_VERSION));
      insertMeta.run('snapshotHash', snapshotHash);
      insertMeta.run('lastUpdated', lastUpdated);
      insertMeta.run('listings', String(accepted.length));
      insertMeta.run('rejected', String(rejects.length));
      insertMeta.run('historyEnd', historyEnd ?? '');
    })();
    const removed = [...previousRecords.keys()].filter((id) => !seenIds.has(id)).length;
    const snapshotHash = (db.prepare("SELECT value FROM meta WHERE key = 'snapshotHash'").get() as { value: string }).value;
    db.exec('VACUUM');
    db.close();
    previous?.close();
    previous = undefined;
    renameSync(temp, database);
    return {
      database,
      listings: accepted.length,
      files,
      historyRows,
      rejected: rejects,
      added,
      changed,
      removed,
      unchanged,
      snapshotHash,
      lastUpdated,
    };
  } catch (error) {
    if (db.open) db.close();
    previous?.close();
    rmSync(temp, { force: true });
    throw error;
  }
}

export function databaseExists(path: string): boolean {
  return existsSync(path) && statSync(path).size > 0;
}
