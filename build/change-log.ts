// The per-build change log: which listings this build added, changed and removed against the build it replaces,
// each with the SHA-256 of its record as ingested, and the added and changed records themselves. Published as
// /shards/changes.json; a mirror that holds the previous snapshot's export patches it with these records instead
// of fetching the whole export again (and checks the patched file against the manifest's SHA-256).
import { hash } from 'node:crypto';
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

export const lineDigest = (line: string): string => hash('sha256', line);

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
    await this.text(this.count++ === 0 ? json : `,${json}`);
  }

  async text(text: string): Promise<void> {
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'close');
  }

  /** Closes the file without waiting (a spool given up on); idempotent. */
  destroy(): void {
    this.out.destroy();
  }
}

/**
 * An export's lines as the change log compares them: id → SHA-256 of its line, in the export's order (32 bytes a
 * listing beside its id: a million ids and digests, not a million lines).
 */
class ExportDigests {
  readonly positions = new Map<string, number>();
  private digests = Buffer.alloc(32 * 1024);

  add(id: string, digest: Buffer): void {
    const at = this.positions.size;
    if ((at + 1) * 32 > this.digests.length) {
      const grown = Buffer.alloc(this.digests.length * 2);
      this.digests.copy(grown);
      this.digests = grown;
    }
    digest.copy(this.digests, at * 32);
    this.positions.set(id, at);
  }

  digest(at: number): Buffer {
    return this.digests.subarray(at * 32, at * 32 + 32);
  }

  /** Read from the export itself: every line hashed. */
  static async ofExport(exportFile: string): Promise<ExportDigests> {
    const table = new ExportDigests();
    for await (const line of fileLines(exportFile)) if (line) table.add(idOf(line), hash('sha256', line, 'buffer'));
    return table;
  }

  /**
   * Read from the digests file a build wrote beside its export (ChangeLogWriter's `digestsOut`): the table without
   * reading or hashing that export again. Undefined when the file is missing, of another format or another snapshot,
   * or not whole: the export is read instead.
   */
  static async ofDigestsFile(file: string, snapshotHash: string): Promise<ExportDigests | undefined> {
    if (!existsSync(file)) return undefined;
    const table = new ExportDigests();
    let header: string | undefined;
    let trailer: string | undefined;
    for await (const line of fileLines(file)) {
      if (trailer !== undefined) return undefined;
      if (header === undefined) {
        header = line;
        if (header !== digestsHeader(snapshotHash)) return undefined;
      } else if (DIGEST_LINE.test(line)) {
        let id: unknown;
        try {
          id = JSON.parse(line.slice(65));
        } catch {
          return undefined;
        }
        if (typeof id !== 'string') return undefined;
        table.add(id, Buffer.from(line.slice(0, 64), 'hex'));
      } else trailer = line;
    }
    return trailer === digestsTrailer(table.positions.size) ? table : undefined;
  }
}

/** The digests file: a header naming its format and the snapshot, `<sha256> <id as JSON>` per line, a count last. */
const DIGESTS_FORMAT = 1;
const digestsHeader = (snapshotHash: string) => `catalog export digests ${DIGESTS_FORMAT} ${snapshotHash}`;
const digestsTrailer = (count: number) => `end ${count}`;
const DIGEST_LINE = /^[0-9a-f]{64} "/;

export interface WrittenChangeLog {
  from: string | null;
  added: number;
  changed: number;
  removed: number;
}

/** The export a change log starts from: its file and snapshot, and the digests file written beside it, if any. */
export interface ChangeLogBase {
  snapshotHash: string;
  exportFile: string;
  digestsFile?: string | undefined;
}

/**
 * Writes the change log from the previous build's export (absent: everything is added) to this build's, whose lines
 * are given one at a time as the export is written (`line`), into `out`, as JSON.stringify(log) would, without holding
 * either export or the log: the previous export is taken as a table of id → SHA-256 of its line (from the digests file
 * its build wrote, else by reading it), each new line is hashed against it, and the log's arrays are spooled to files
 * beside `out` and joined in order by `finish`. With `digestsOut`, the new export's table is written there for the
 * next build.
 */
export class ChangeLogWriter {
  private readonly base: { snapshotHash: string; table: ExportDigests; seen: Uint8Array } | undefined;
  private readonly next: string;
  private readonly out: string;
  private readonly spools: Record<'added' | 'changed' | 'removed' | 'records', Spool>;
  private readonly digests: Spool | undefined;

  private constructor(base: ChangeLogWriter['base'], next: string, out: string, digestsOut: string | undefined) {
    this.base = base;
    this.next = next;
    this.out = out;
    this.spools = {
      added: new Spool(`${out}.added`),
      changed: new Spool(`${out}.changed`),
      removed: new Spool(`${out}.removed`),
      records: new Spool(`${out}.records`),
    };
    this.digests = digestsOut === undefined ? undefined : new Spool(digestsOut);
  }

  static async open(
    previous: ChangeLogBase | undefined,
    next: { snapshotHash: string; digestsOut?: string | undefined },
    out: string,
  ): Promise<ChangeLogWriter> {
    let base: ChangeLogWriter['base'];
    if (previous && existsSync(previous.exportFile)) {
      const table =
        (previous.digestsFile === undefined ? undefined : await ExportDigests.ofDigestsFile(previous.digestsFile, previous.snapshotHash)) ??
        (await ExportDigests.ofExport(previous.exportFile));
      base = { snapshotHash: previous.snapshotHash, table, seen: new Uint8Array(table.positions.size) };
    }
    const writer = new ChangeLogWriter(base, next.snapshotHash, out, next.digestsOut);
    await writer.digests?.text(`${digestsHeader(next.snapshotHash)}\n`);
    return writer;
  }

  /** The next line of the new export (without its newline; blank lines are skipped). */
  async line(line: string): Promise<void> {
    if (!line) return;
    const id = idOf(line);
    const digest = hash('sha256', line, 'buffer');
    if (this.digests) {
      this.digests.count++;
      await this.digests.text(`${digest.toString('hex')} ${JSON.stringify(id)}\n`);
    }
    const at = this.base?.table.positions.get(id);
    if (at !== undefined) {
      this.base!.seen[at] = 1;
      if (digest.equals(this.base!.table.digest(at))) return;
    }
    await (at === undefined ? this.spools.added : this.spools.changed).element(JSON.stringify({ id, sha256: digest.toString('hex') }));
    // Without a previous export there is nothing to patch: the records would only repeat the export.
    if (this.base) await this.spools.records.element(JSON.stringify(line));
  }

  /** Writes the log (and the digests file) once the new export's last line was given; the spools are removed. */
  async finish(): Promise<WrittenChangeLog> {
    const { base, spools } = this;
    try {
      if (base) {
        // In the previous export's order, as the ids were first seen.
        for (const [id, at] of base.table.positions) {
          if (!base.seen[at]) await spools.removed.element(JSON.stringify({ id, sha256: base.table.digest(at).toString('hex') }));
        }
      }
      for (const spool of Object.values(spools)) await spool.close();
      if (this.digests) {
        await this.digests.text(`${digestsTrailer(this.digests.count)}\n`);
        await this.digests.close();
      }
      const file = createWriteStream(this.out);
      const write = async (text: string | Buffer) => {
        if (!file.write(text)) await once(file, 'drain');
      };
      await write(`{"format":${CHANGE_LOG_FORMAT},"from":${JSON.stringify(base ? base.snapshotHash : null)},"to":${JSON.stringify(this.next)}`);
      for (const name of ['added', 'changed', 'removed', 'records'] as const) {
        await write(`,"${name}":[`);
        for await (const chunk of createReadStream(spools[name].path)) await write(chunk as Buffer);
        await write(']');
      }
      file.end('}');
      await once(file, 'close');
      return { from: base ? base.snapshotHash : null, added: spools.added.count, changed: spools.changed.count, removed: spools.removed.count };
    } finally {
      this.discard();
    }
  }

  /** Removes the spools (a log given up on, or written); a digests file given up on is closed where it is. */
  discard(): void {
    this.digests?.destroy();
    for (const spool of Object.values(this.spools)) {
      spool.destroy();
      rmSync(spool.path, { force: true });
    }
  }
}

/** The change log between two export files (ChangeLogWriter with the new export read back from its file). */
export async function writeChangeLog(
  previous: ChangeLogBase | undefined,
  next: { snapshotHash: string; exportFile: string; digestsOut?: string | undefined },
  out: string,
): Promise<WrittenChangeLog> {
  const writer = await ChangeLogWriter.open(previous, next, out);
  try {
    for await (const line of fileLines(next.exportFile)) await writer.line(line);
  } catch (error) {
    writer.discard();
    throw error;
  }
  return writer.finish();
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
