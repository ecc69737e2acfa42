// Small snapshot exports for tests that mutate builds: real records from the embedded snapshot, written
// to a temp directory in the export format (JSON Lines + files/), optionally edited.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ListingRecord } from '../../src/domain/schemas.ts';

const SNAPSHOT = resolve('data/listings.jsonl');
let cached: ListingRecord[] | undefined;

/** Every record of the embedded snapshot (parsed once per test file). */
export function snapshotRecords(): ListingRecord[] {
  cached ??= readFileSync(SNAPSHOT, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ListingRecord);
  return cached;
}

/** A deterministic sample: the first `perType` records of each type, plus every record named in `include`. */
export function sampleRecords(perType = 40, include: string[] = []): ListingRecord[] {
  const counts = new Map<string, number>();
  return snapshotRecords().filter((r) => {
    const n = counts.get(r.type) ?? 0;
    if (n < perType || include.includes(r.slug)) {
      counts.set(r.type, n + 1);
      return true;
    }
    return false;
  });
}

export function tempDir(prefix = 'catalog-fixture-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes records (or raw lines) as an export with their stored files; returns the export path. */
export function writeExport(dir: string, records: Array<ListingRecord | string>, name = 'listings.jsonl'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  // Like data/: the history end date of records without metrics.installsAsOf lives in build-summary.json.
  writeFileSync(join(dir, 'build-summary.json'), readFileSync(resolve('data/build-summary.json')));
  for (const record of records) {
    if (typeof record === 'string' || !record.files?.length) continue;
    const source = resolve('data/files', record.slug);
    if (existsSync(source)) cpSync(source, join(dir, 'files', record.slug), { recursive: true });
  }
  return path;
}
