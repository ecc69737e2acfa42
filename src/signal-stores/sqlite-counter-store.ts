// Search-trend counters in SQLite: <data>/signals.db, next to (never inside) the snapshot database, so an
// ingest can replace catalog.db while the shim keeps counting. WAL lets the rebuild read while the shim writes.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { addUtcDays, SIGNAL_DAYS_KEPT, type DailyCounts, type SignalCounts, type SignalStore } from './counter-store.ts';

export const SIGNALS_FILE = 'signals.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS daily_signal (
  day TEXT NOT NULL,
  listing_id TEXT NOT NULL,
  appeared INTEGER NOT NULL DEFAULT 0,
  opened INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, listing_id)
) WITHOUT ROWID;
`;

function sumSince(db: Database.Database, sinceDay: string): Map<string, SignalCounts> {
  const rows = db
    .prepare('SELECT listing_id AS id, SUM(appeared) AS appeared, SUM(opened) AS opened FROM daily_signal WHERE day >= ? GROUP BY listing_id')
    .all(sinceDay) as Array<{ id: string; appeared: number; opened: number }>;
  return new Map(rows.map((row) => [row.id, { appeared: row.appeared, opened: row.opened }]));
}

/** Reads the totals of a signals database without writing to it; empty when there is none. */
export function readSqliteSignalTotals(path: string, sinceDay: string): Map<string, SignalCounts> {
  if (!existsSync(path)) return new Map();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return sumSince(db, sinceDay);
  } finally {
    db.close();
  }
}

export class SqliteSignalStore implements SignalStore {
  readonly path: string;
  private db: Database.Database | undefined;
  private prunedOn = '';

  constructor(path: string) {
    this.path = path;
  }

  // Opened on the first flush with counts, so a shim nobody searches never creates the file.
  private open(): Database.Database {
    if (this.db) return this.db;
    mkdirSync(dirname(this.path), { recursive: true });
    const db = new Database(this.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    this.db = db;
    return db;
  }

  async add(counts: DailyCounts): Promise<void> {
    if (counts.size === 0) return;
    const db = this.open();
    const upsert = db.prepare(
      'INSERT INTO daily_signal (day, listing_id, appeared, opened) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (day, listing_id) DO UPDATE SET appeared = appeared + excluded.appeared, opened = opened + excluded.opened',
    );
    let newest = '';
    db.transaction(() => {
      for (const [day, byId] of counts) {
        if (day > newest) newest = day;
        for (const [id, c] of byId) upsert.run(day, id, c.appeared, c.opened);
      }
    })();
    if (newest !== this.prunedOn) {
      db.prepare('DELETE FROM daily_signal WHERE day < ?').run(addUtcDays(newest, -SIGNAL_DAYS_KEPT));
      this.prunedOn = newest;
    }
  }

  async totals(sinceDay: string): Promise<Map<string, SignalCounts>> {
    return this.db ? sumSince(this.db, sinceDay) : readSqliteSignalTotals(this.path, sinceDay);
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }
}
