// Successive daily exports derived from a sample of the embedded snapshot, the way the upstream job would
// publish them: each day every history moves on by one day (ending one day later, one value appended), a few
// listings grow sharply, some disappear and new ones appear.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { addDays } from '../../build/sqlite-store.ts';

const HISTORY_END: string = JSON.parse(readFileSync(resolve('data/build-summary.json'), 'utf8')).historyEnd;

/** The day a record's history ends on (its own installsAsOf, else the export's historyEnd). */
export function historyEndOf(record: ListingRecord): string {
  return record.metrics.installsAsOf ?? HISTORY_END;
}

/** The usual daily gain of a record: its average over the last week of its history. */
function usualGain(record: ListingRecord): number {
  const h = record.installsHistory;
  return Math.max(0, Math.round((h[h.length - 1]! - h[h.length - 8]!) / 7));
}

/** The record one day later: the oldest day drops out of its window, a new last day is appended. */
export function nextDay(record: ListingRecord, gain = usualGain(record)): ListingRecord {
  const installs = record.installs + gain;
  return {
    ...record,
    installs,
    installsHistory: [...record.installsHistory.slice(1), installs],
    metrics: { ...record.metrics, installsAsOf: addDays(historyEndOf(record), 1) },
  };
}

/** A sharp jump: the listing gains ten times its whole installs in one day. */
export function sharpGain(record: ListingRecord): number {
  return Math.max(50_000, record.installs * 10);
}
