// Ingest, step 3: the one writer. Applies a plan to a fresh database beside the old one and renames it over the
// old one only when everything is written, so a failed ingest leaves the previous database untouched.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SCHEMA } from '../../sqlite-store.ts';
import { mediaTypeOf } from './stored-file-types.ts';
import { metaRows, type IngestPlan } from './plan.ts';

const CHANGES_SCHEMA = 'CREATE TABLE ingest_change (kind TEXT NOT NULL, listing_id TEXT NOT NULL, PRIMARY KEY (kind, listing_id)) WITHOUT ROWID;';

export interface WriteOptions {
  /** The text of files/<slug>/<path> (validation checked that it exists). */
  readStoredText(slug: string, path: string): string;
  /** Called once the new database is complete, before it replaces `database`: the plan's previous store closes here. */
  beforeSwap?(): void;
}

/** Writes `plan` as the database at `database`; returns the install-history days written for listed listings. */
export function writeIngest(database: string, plan: IngestPlan, options: WriteOptions): { historyRows: number } {
  mkdirSync(dirname(database), { recursive: true });
  const temp = `${database}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    const insertListing = db.prepare('INSERT INTO listing (id, slug, type, installs, stars, record) VALUES (?, ?, ?, ?, ?, ?)');
    const insertFile = db.prepare('INSERT INTO listing_file (listing_id, ord, path, size, media_type, content) VALUES (?, ?, ?, ?, ?, ?)');
    const insertHistory = db.prepare('INSERT INTO install_history (listing_id, first_day, daily) VALUES (?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    let historyRows = 0;
    db.transaction(() => {
      for (const { record, json } of plan.listings) {
        insertListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        (record.files ?? []).forEach((path, ord) => {
          const content = options.readStoredText(record.slug, path);
          insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
        });
      }
      for (const row of plan.history()) {
        insertHistory.run(row.id, row.firstDay, row.daily);
        if (row.listed) historyRows += row.days;
      }
      for (const [key, value] of metaRows(plan, historyRows)) insertMeta.run(key, value);
    })();
    // What this ingest changed stays with the store, so a caller that ran it through the build pipeline
    // (catalog rebuild) can still list the ids.
    db.exec(CHANGES_SCHEMA);
    const insertChange = db.prepare('INSERT INTO ingest_change (kind, listing_id) VALUES (?, ?)');
    db.transaction(() => {
      for (const kind of ['added', 'changed', 'removed'] as const) for (const id of plan.changes[kind]) insertChange.run(kind, id);
    })();
    db.exec('VACUUM');
    db.close();
    options.beforeSwap?.();
    renameSync(temp, database);
    return { historyRows };
  } catch (error) {
    if (db.open) db.close();
    rmSync(temp, { force: true });
    throw error;
  }
}
