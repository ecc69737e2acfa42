// The collector's state directory: per source, what its last successful run read (so a failed source keeps its
// listings) and the adapter's own files (ETags, high-water marks, clones); per figure source, the last known
// values. Every file is written to a temporary name and renamed, and only after a collection succeeded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Candidate, InstallCount, RepoMeta } from './types.ts';
import { LineFile } from './line-file.ts';

/** What a source's last successful run left. */
export interface SourceRecord {
  /** YYYY-MM-DD of the run. */
  confirmedAt: string;
  commit?: string;
  count: number;
  /** SHA-256 of the source's entry in the sources file: a changed entry (ref, bounds, path) reads anew. */
  settings?: string;
}

export class CollectState {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  /** A source's own directory: a readable name plus a hash, so two ids never share one. */
  sourceDir(sourceId: string): string {
    const name = sourceId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
    const dir = join(this.dir, 'sources', `${name}-${createHash('sha256').update(sourceId).digest('hex').slice(0, 8)}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  lastRun(sourceId: string): SourceRecord | undefined {
    const file = join(this.sourceDir(sourceId), 'last-run.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SourceRecord) : undefined;
  }

  async lastCandidates(sourceId: string): Promise<Candidate[]> {
    const file = join(this.sourceDir(sourceId), 'candidates.jsonl');
    if (!existsSync(file)) return [];
    const candidates: Candidate[] = [];
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (line) candidates.push(JSON.parse(line) as Candidate);
    }
    return candidates;
  }

  async saveRun(sourceId: string, run: SourceRecord, candidates: Candidate[], keyOf: (candidate: Candidate) => string): Promise<void> {
    const dir = this.sourceDir(sourceId);
    writeAtomic(join(dir, 'keys.txt'), candidates.map((candidate) => `${keyOf(candidate)}\n`).join(''));
    const temp = join(dir, `candidates.jsonl.${process.pid}.tmp`);
    const out = createWriteStream(temp);
    for (const candidate of candidates) {
      // An export candidate's text is read from its file now: state must hold it if that file goes away.
      const saved = candidate.recordAt ? { ...candidate, recordJson: candidate.recordAt(), recordAt: undefined } : candidate;
      if (!out.write(`${JSON.stringify(saved)}\n`)) await new Promise<void>((done) => out.once('drain', () => done()));
    }
    await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
    renameSync(temp, join(dir, 'candidates.jsonl'));
    this.saveRunRecord(sourceId, run);
  }

  /** A run that confirmed the last run's candidates without reading them again. */
  saveRunRecord(sourceId: string, run: SourceRecord): void {
    writeAtomic(join(this.sourceDir(sourceId), 'last-run.json'), JSON.stringify(run));
  }

  /** The primary identity key of each candidate of the last run, without holding the candidates. */
  async lastKeys(sourceId: string): Promise<Set<string>> {
    const file = join(this.sourceDir(sourceId), 'keys.txt');
    const keys = new Set<string>();
    if (!existsSync(file)) return keys;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line) keys.add(line);
    return keys;
  }

  /** Every listing's identity keys as the last collection knew them, one line per listing in export order. */
  async identities(): Promise<LineFile | undefined> {
    const file = join(this.dir, 'identities.jsonl');
    return existsSync(file) ? LineFile.open(file) : undefined;
  }

  async saveIdentities(entries: Iterable<[string, string[]]>): Promise<void> {
    const temp = join(this.dir, `identities.jsonl.${process.pid}.tmp`);
    const out = createWriteStream(temp);
    for (const entry of entries) {
      if (!out.write(`${JSON.stringify(entry)}\n`)) await new Promise<void>((done) => out.once('drain', () => done()));
    }
    await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
    renameSync(temp, join(this.dir, 'identities.jsonl'));
  }

  repoMeta(): Map<string, RepoMeta> {
    const file = join(this.dir, 'github-meta.json');
    if (!existsSync(file)) return new Map();
    return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, RepoMeta>));
  }

  saveRepoMeta(meta: Map<string, RepoMeta>): void {
    const sorted = Object.fromEntries([...meta.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeAtomic(join(this.dir, 'github-meta.json'), JSON.stringify(sorted));
  }

  installs(): InstallCount[] {
    const file = join(this.dir, 'installs.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as InstallCount[]) : [];
  }

  saveInstalls(counts: InstallCount[]): void {
    writeAtomic(join(this.dir, 'installs.json'), JSON.stringify(counts));
  }
}

export function writeAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}
