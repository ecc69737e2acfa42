// Ingest, step 3: the one writer. Applies a plan to a fresh database beside the old one and renames it over the
// old one only when everything is written, so a failed ingest leaves the previous database untouched.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
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

/**
 * Copies the listing rows and install histories of `asStored` from the database being replaced (attached as
 * "previous") into `db`, in key order. Returns the listings whose history it held (a store this code wrote holds every
 * listing's) and the days of those histories.
 */
function copyPrevious(db: Database.Database, asStored: ReadonlySet<string>): { copied: Set<string>; days: number } {
  db.exec('CREATE TEMP TABLE copied (id TEXT PRIMARY KEY) WITHOUT ROWID');
  db.prepare('INSERT INTO temp.copied SELECT value FROM json_each(?)').run(JSON.stringify([...asStored]));
  // CROSS JOIN keeps the ids' table outside: each row is looked up by its key and appended in key order.
  const listings = db.prepare('INSERT INTO main.listing SELECT l.* FROM temp.copied c CROSS JOIN previous.listing l ON l.id = c.id').run();
  if (listings.changes !== asStored.size) throw new Error(`the previous database holds ${listings.changes} of ${asStored.size} unchanged listings`);
  const histories = db
    .prepare('INSERT INTO main.install_history SELECT h.* FROM temp.copied c CROSS JOIN previous.install_history h ON h.listing_id = c.id')
    .run();
  const copied = new Set(asStored);
  if (histories.changes !== asStored.size) {
    const missing = db
      .prepare('SELECT c.id FROM temp.copied c WHERE NOT EXISTS (SELECT 1 FROM main.install_history h WHERE h.listing_id = c.id)')
      .pluck()
      .all() as string[];
    for (const id of missing) copied.delete(id);
  }
  db.exec('DROP TABLE temp.copied');
  const days = (db.prepare('SELECT sum(json_array_length(daily)) FROM main.install_history').pluck().get() as number | null) ?? 0;
  return { copied, days };
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
    // The rows the database being replaced holds as this ingest would write them are copied by SQLite, not read into
    // JavaScript and written back: most of a daily ingest. The VACUUM below lays every table out anew in key order, so
    // the file is the same bytes whichever rows were copied.
    const copy = plan.asStored.size > 0 && existsSync(database);
    if (copy) db.prepare('ATTACH DATABASE ? AS previous').run(database);
    db.transaction(() => {
      const { copied, days } = copy ? copyPrevious(db, plan.asStored) : { copied: undefined, days: 0 };
      historyRows += days;
      for (const { record, json } of plan.listings) {
        if (!copy || !plan.asStored.has(record.id)) insertListing.run(record.id, record.slug, record.type, record.installs, record.stars, json);
        (record.files ?? []).forEach((path, ord) => {
          const content = options.readStoredText(record.slug, path);
          insertFile.run(record.id, ord, path, Buffer.byteLength(content), mediaTypeOf(path), content);
        });
      }
      for (const row of plan.history(copied)) {
        insertHistory.run(row.id, row.firstDay, row.daily);
        if (row.listed) historyRows += row.days;
      }
      for (const [key, value] of metaRows(plan, historyRows)) insertMeta.run(key, value);
    })();
    if (copy) db.exec('DETACH DATABASE previous');
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
