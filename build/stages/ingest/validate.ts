// Ingest, step 1: export entries → accepted records and rejects. Every rule a record must pass is here: the
// schema, unique ids and slugs, stored files present (hashed, so the snapshot covers their bytes), a history end.
// Pure but for the stored-file reader it is given, so each rule is testable without a file system.
import { createHash } from 'node:crypto';
import { ListingRecordSchema, type ListingRecord } from '../../../src/domain/schemas.ts';
import type { ExportLine } from '../../export-reader.ts';

export interface Reject {
  file: string;
  line: number;
  id?: string;
  reason: string;
}

export interface AcceptedRecord {
  record: ListingRecord;
  /** The record as ingested: the export's value serialised (the store keeps it, the snapshot hash covers it). */
  json: string;
  /** SHA-256 of each stored file, in the record's file order. */
  fileHashes: string[];
}

export interface ValidateOptions {
  /** The export's path, named in every reject. */
  file: string;
  /** Day (YYYY-MM-DD) of the last history value of records without metrics.installsAsOf. */
  historyEnd: string | undefined;
  /** The bytes of files/<slug>/<path>; undefined when there is no such file. */
  readStoredFile(slug: string, path: string): Buffer | undefined;
  /**
   * The record a store written by this same code holds under an id, as stored. A record byte-equal to it passed this
   * schema when it was stored, so its schema check is skipped (the rules across records and its files still apply).
   */
  validatedBefore?(id: string): string | undefined;
}

/** Ids and slugs of the records accepted so far: a later record may not take either again. */
export interface Seen {
  ids: Set<string>;
  slugs: Set<string>;
}

export interface Validation {
  /** In export order. */
  accepted: AcceptedRecord[];
  rejects: Reject[];
  /** Stored files of the accepted records. */
  files: number;
}

function describeIssues(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'record'}: ${issue.message}`)
    .join('; ');
}

/** One export entry: accepted (and its id and slug taken in `seen`), or the reason it is refused. */
export function validateRecord(entry: ExportLine, seen: Seen, options: ValidateOptions): { accepted: AcceptedRecord } | { reject: Reject } {
  const { file } = options;
  const { line, value } = entry;
  if (entry.parseError) return { reject: { file, line, reason: entry.parseError } };
  const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
  const json = JSON.stringify(value);
  let record: ListingRecord;
  if (id !== undefined && options.validatedBefore?.(id) === json) {
    // The schema only checks and strips unknown fields: the value itself serves as the record the ingest reads.
    record = value as ListingRecord;
  } else {
    const parsed = ListingRecordSchema.safeParse(value);
    if (!parsed.success) return { reject: { file, line, id, reason: describeIssues(parsed.error) } };
    record = parsed.data;
  }
  if (seen.ids.has(record.id)) return { reject: { file, line, id, reason: `duplicate id ${record.id}` } };
  if (seen.slugs.has(record.slug)) return { reject: { file, line, id, reason: `duplicate slug ${record.slug}` } };
  const fileHashes: string[] = [];
  for (const path of record.files ?? []) {
    const bytes = path.includes('..') ? undefined : options.readStoredFile(record.slug, path);
    if (bytes === undefined) return { reject: { file, line, id, reason: `stored file ${record.slug}/${path} is missing` } };
    fileHashes.push(createHash('sha256').update(bytes).digest('hex'));
  }
  if (!record.metrics.installsAsOf && !options.historyEnd) {
    return { reject: { file, line, id, reason: 'metrics.installsAsOf missing and no history end date given (--history-end)' } };
  }
  seen.ids.add(record.id);
  seen.slugs.add(record.slug);
  return { accepted: { record, json, fileHashes } };
}

/** Every entry of an export, validated in order (read one at a time: the export is never held whole). */
export async function validateRecords(entries: Iterable<ExportLine> | AsyncIterable<ExportLine>, options: ValidateOptions): Promise<Validation> {
  const validation: Validation = { accepted: [], rejects: [], files: 0 };
  const seen: Seen = { ids: new Set(), slugs: new Set() };
  for await (const entry of entries) {
    const outcome = validateRecord(entry, seen, options);
    if ('reject' in outcome) {
      validation.rejects.push(outcome.reject);
      continue;
    }
    validation.accepted.push(outcome.accepted);
    validation.files += outcome.accepted.record.files?.length ?? 0;
  }
  return validation;
}
