// The per-build change log: which listings this build added, changed and removed against the build it replaces,
// each with the SHA-256 of its record as ingested, and the added and changed records themselves. Published as
// /shards/changes.json; a mirror that holds the previous snapshot's export patches it with these records instead
// of fetching the whole export again (and checks the patched file against the manifest's SHA-256).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, rmSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { byValueThenId } from '../src/domain/listing/ranking.ts';

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

const ID_PREFIX = '{"id":"';

/**
 * The id of an export line. The export writes `id` first (the record as ingested), so the id is read from the line's
 * start without parsing the rest; a line written otherwise, or an id with escapes, is parsed whole.
 */
export function idOf(line: string): string {
  if (line.startsWith(ID_PREFIX)) {
    const end = line.indexOf('"', ID_PREFIX.length);
    const id = line.slice(ID_PREFIX.length, end);
    // Parsed from its own quotes: a slice of the line would keep the whole line alive as long as the id.
    if (end > 0 && !id.includes('\\')) return JSON.parse(line.slice(ID_PREFIX.length - 1, end + 1)) as string;
  }
  return (JSON.parse(line) as { id: string }).id;
}

/** The lines of a file, one at a time: an export is never held whole (at a million listings it passes V8's string limit). */
function fileLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path), crlfDelay: Infinity });
}

/** A temporary file written piece by piece, honouring backpressure. */
class Spool {
  readonly path: string;
  count = 0;
  private readonly out: WriteStream;

  constructor(path: string) {
    this.path = path;
    this.out = createWriteStream(path);
  }

  /** Appends one JSON element of an array (the comma before all but the first). */
  async element(json: string): Promise<void> {
    if (!this.out.write(this.count++ === 0 ? json : `,${json}`)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'close');
  }
}

export interface WrittenChangeLog {
  from: string | null;
  added: number;
  changed: number;
  removed: number;
}

/**
 * Writes the change log from the previous build's export (absent: everything is added) to this build's into `out`,
 * as JSON.stringify(log) would, without holding either export or the log: the previous export is read once into a
 * table of id → SHA-256 of its line (the in-memory index this needs), the new one streamed against it, and the
 * log's arrays are spooled to files beside `out` and joined in order at the end.
 */
export async function writeChangeLog(
  previous: { snapshotHash: string; exportFile: string } | undefined,
  next: { snapshotHash: string; exportFile: string },
  out: string,
): Promise<WrittenChangeLog> {
  const base = previous && existsSync(previous.exportFile) ? previous : undefined;
  // id → position in `digests` (32 bytes each): a million ids and digests, not a million lines.
  const positions = new Map<string, number>();
  let digests = Buffer.alloc(32 * 1024);
  if (base) {
    for await (const line of fileLines(base.exportFile)) {
      if (!line) continue;
      const at = positions.size;
      if ((at + 1) * 32 > digests.length) {
        const grown = Buffer.alloc(digests.length * 2);
        digests.copy(grown);
        digests = grown;
      }
      createHash('sha256')
        .update(line)
        .digest()
        .copy(digests, at * 32);
      positions.set(idOf(line), at);
    }
  }
  const seen = new Uint8Array(positions.size);
  const spools = {
    added: new Spool(`${out}.added`),
    changed: new Spool(`${out}.changed`),
    removed: new Spool(`${out}.removed`),
    records: new Spool(`${out}.records`),
  };
  try {
    for await (const line of fileLines(next.exportFile)) {
      if (!line) continue;
      const id = idOf(line);
      const digest = createHash('sha256').update(line).digest();
      const at = positions.get(id);
      if (at !== undefined) {
        seen[at] = 1;
        if (digest.equals(digests.subarray(at * 32, at * 32 + 32))) continue;
      }
      await (at === undefined ? spools.added : spools.changed).element(JSON.stringify({ id, sha256: digest.toString('hex') }));
      // Without a previous export there is nothing to patch: the records would only repeat the export.
      if (base) await spools.records.element(JSON.stringify(line));
    }
    // In the previous export's order, as the ids were first seen.
    for (const [id, at] of positions) {
      if (!seen[at]) await spools.removed.element(JSON.stringify({ id, sha256: digests.toString('hex', at * 32, at * 32 + 32) }));
    }
    for (const spool of Object.values(spools)) await spool.close();

    const file = createWriteStream(out);
    const write = async (text: string | Buffer) => {
      if (!file.write(text)) await once(file, 'drain');
    };
    await write(`{"format":${CHANGE_LOG_FORMAT},"from":${JSON.stringify(base ? base.snapshotHash : null)},"to":${JSON.stringify(next.snapshotHash)}`);
    for (const name of ['added', 'changed', 'removed', 'records'] as const) {
      await write(`,"${name}":[`);
      for await (const chunk of createReadStream(spools[name].path)) await write(chunk as Buffer);
      await write(']');
    }
    file.end('}');
    await once(file, 'close');
    return { from: base ? base.snapshotHash : null, added: spools.added.count, changed: spools.changed.count, removed: spools.removed.count };
  } finally {
    for (const spool of Object.values(spools)) rmSync(spool.path, { force: true });
  }
}

/**
 * The lines of an export patched by a change log, streamed: the records it removes or replaces dropped, the ones it
 * adds or changes merged in, in the export's order (installs desc, id asc). Only the log's records are held, sorted;
 * the export is read once, line by line. Undefined when the log does not start from this export's snapshot.
 */
export function patchedExportLines(lines: AsyncIterable<string> | Iterable<string>, fromSnapshot: string, log: ChangeLog): AsyncIterable<string> | undefined {
  if (log.from === null || log.from !== fromSnapshot) return undefined;
  const order = byValueThenId(
    (row: { installs: number; id: string }) => row.installs,
    (row) => row.id,
  );
  const records = log.records.map((line) => ({ line, ...(JSON.parse(line) as { id: string; installs: number }) })).sort(order);
  const dropped = new Set([...log.removed.map((entry) => entry.id), ...records.map((record) => record.id)]);
  return (async function* () {
    let next = 0;
    for await (const line of lines) {
      if (!line) continue;
      const row = JSON.parse(line) as { id: string; installs: number };
      if (dropped.has(row.id)) continue;
      while (next < records.length && order(records[next]!, row) < 0) yield records[next++]!.line;
      yield line;
    }
    while (next < records.length) yield records[next++]!.line;
  })();
}

/** patchedExportLines of an export's text, as one text (small exports: the tests'). */
export async function patchExport(exportText: string, fromSnapshot: string, log: ChangeLog): Promise<string | undefined> {
  const lines = patchedExportLines(exportText.split('\n'), fromSnapshot, log);
  if (!lines) return undefined;
  let text = '';
  for await (const line of lines) text += `${line}\n`;
  return text;
}

/** patchedExportLines of an export file, written to `out` as they come; false (and nothing written) when it does not apply. */
export async function patchExportFile(exportFile: string, fromSnapshot: string, log: ChangeLog, out: string): Promise<boolean> {
  const lines = patchedExportLines(fileLines(exportFile), fromSnapshot, log);
  if (!lines) return false;
  const file = createWriteStream(out);
  try {
    for await (const line of lines) if (!file.write(`${line}\n`)) await once(file, 'drain');
  } finally {
    file.end();
    await once(file, 'close');
  }
  return true;
}
