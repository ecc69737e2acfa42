// The per-build change log: which listings this build added, changed and removed against the build it replaces,
// each with the SHA-256 of its record as ingested, and the added and changed records themselves. Published as
// /shards/changes.json; a mirror that holds the previous snapshot's export patches it with these records instead
// of fetching the whole export again (and checks the patched file against the manifest's SHA-256).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { byValueThenId } from '../src/domain/ranking.ts';

export const CHANGE_LOG_PATH = '/shards/changes.json';
export const CHANGE_LOG_FORMAT = 1;

const Digest = z.string().regex(/^[0-9a-f]{64}$/);

export const ChangeLogSchema = z.object({
  format: z.literal(CHANGE_LOG_FORMAT),
  /** Snapshot of the build this one replaced (null: the first build of this data directory). */
  from: z.string().nullable(),
  to: z.string(),
  added: z.array(z.object({ id: z.string(), sha256: Digest })),
  changed: z.array(z.object({ id: z.string(), sha256: Digest })),
  removed: z.array(z.object({ id: z.string(), sha256: Digest })),
  /** The added and changed records, each the exact export line (without its newline). */
  records: z.array(z.string()),
});
export type ChangeLog = z.infer<typeof ChangeLogSchema>;

export const lineDigest = (line: string): string => createHash('sha256').update(line).digest('hex');

const idOf = (line: string): string => (JSON.parse(line) as { id: string }).id;

/** id → export line, for every record of an export file. */
export function exportLines(text: string): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of text.split('\n')) if (line) lines.set(idOf(line), line);
  return lines;
}

/** The change log from the previous build's export (absent: everything is added) to this build's. */
export function changeLog(previous: { snapshotHash: string; exportFile: string } | undefined, next: { snapshotHash: string; exportText: string }): ChangeLog {
  const before = previous && existsSync(previous.exportFile) ? exportLines(readFileSync(previous.exportFile, 'utf8')) : undefined;
  const after = exportLines(next.exportText);
  const log: ChangeLog = { format: CHANGE_LOG_FORMAT, from: before ? previous!.snapshotHash : null, to: next.snapshotHash, added: [], changed: [], removed: [], records: [] };
  for (const [id, line] of after) {
    const old = before?.get(id);
    if (old === line) continue;
    (old === undefined ? log.added : log.changed).push({ id, sha256: lineDigest(line) });
    // Without a previous export there is nothing to patch: the records would only repeat the export.
    if (before) log.records.push(line);
  }
  if (before) for (const [id, line] of before) if (!after.has(id)) log.removed.push({ id, sha256: lineDigest(line) });
  return log;
}

/**
 * An export patched by a change log: the records it removes dropped, the ones it adds or changes put in, in the
 * export's order (installs desc, id asc). Undefined when the log does not start from this export's snapshot.
 */
export function patchExport(exportText: string, fromSnapshot: string, log: ChangeLog): string | undefined {
  if (log.from === null || log.from !== fromSnapshot) return undefined;
  const lines = exportLines(exportText);
  for (const { id } of log.removed) lines.delete(id);
  for (const line of log.records) lines.set(idOf(line), line);
  const rows = [...lines].map(([id, line]) => ({ id, line, installs: (JSON.parse(line) as { installs: number }).installs }));
  rows.sort(byValueThenId((row) => row.installs, (row) => row.id));
  return rows.map((row) => row.line + '\n').join('');
}
