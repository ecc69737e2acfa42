// One commit's tree as the finders see it: files by path, folders by their child folders, and reads that refuse
// what must not be read. A symbolic link (120000) or a submodule (160000) is never followed: its target is a path
// on whatever machine checks the repository out, and a SKILL.md that links to /etc/passwd must not leak that file.
import { posix } from 'node:path';
import { SUBMODULE_MODE, SYMLINK_MODE, type TreeEntry } from './repository.ts';

export type FileRead =
  | { kind: 'text'; text: string; bytes: number; invalidUtf8: boolean }
  | { kind: 'binary'; bytes: number }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'symlink' }
  | { kind: 'submodule' }
  | { kind: 'missing' };

/** A warning about one file of the snapshot: its path and why. */
export type Warn = (path: string, message: string) => void;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/** Text from bytes: NUL anywhere means binary (git's own test looks for one); invalid UTF-8 is replaced. */
export function decodeText(bytes: Buffer): { text: string; invalidUtf8: boolean } | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return { text: strictUtf8.decode(bytes), invalidUtf8: false };
  } catch {
    return { text: lenientUtf8.decode(bytes), invalidUtf8: true };
  }
}

export function describeRead(read: FileRead, maxFileBytes: number): string {
  switch (read.kind) {
    case 'symlink':
      return 'a symbolic link (never followed)';
    case 'submodule':
      return 'a submodule (never followed)';
    case 'binary':
      return 'binary (NUL bytes)';
    case 'too-large':
      return `${read.bytes} bytes, over maxFileBytes (${maxFileBytes})`;
    case 'missing':
      return 'missing from the commit';
    default:
      return 'text';
  }
}

export class Snapshot {
  readonly files = new Map<string, TreeEntry>();
  readonly maxFileBytes: number;
  private readonly children = new Map<string, Set<string>>();
  private sorted: string[] | undefined;
  private readonly readBlob: (oid: string) => Promise<Buffer | undefined>;

  constructor(entries: Iterable<TreeEntry>, readBlob: (oid: string) => Promise<Buffer | undefined>, maxFileBytes: number) {
    this.readBlob = readBlob;
    this.maxFileBytes = maxFileBytes;
    for (const entry of entries) {
      if (entry.type === 'tree') continue;
      this.files.set(entry.path, entry);
      let child = entry.path;
      for (let parent = posix.dirname(child); ; parent = posix.dirname(parent)) {
        const key = parent === '.' ? '' : parent;
        if (child !== entry.path) {
          let set = this.children.get(key);
          if (!set) this.children.set(key, (set = new Set()));
          if (set.has(posix.basename(child))) break;
          set.add(posix.basename(child));
        }
        if (key === '') break;
        child = key;
      }
    }
  }

  /** Names of the folders directly inside `dir` ('' is the root), sorted. */
  childDirs(dir: string): string[] {
    return [...(this.children.get(dir) ?? [])].sort();
  }

  /** Files anywhere under `dir`, sorted by path: a binary search in the sorted paths, not a scan per skill. */
  filesUnder(dir: string): TreeEntry[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    this.sorted ??= [...this.files.keys()].sort();
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.sorted[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    const under: TreeEntry[] = [];
    for (let index = low; index < this.sorted.length && this.sorted[index]!.startsWith(prefix); index++) under.push(this.files.get(this.sorted[index]!)!);
    return under;
  }

  /** A file's text, or why it was not read; blobs over `maxBytes` are never fetched. */
  async read(path: string, maxBytes = this.maxFileBytes): Promise<FileRead> {
    const entry = this.files.get(path);
    if (!entry) return { kind: 'missing' };
    if (entry.mode === SYMLINK_MODE) return { kind: 'symlink' };
    if (entry.mode === SUBMODULE_MODE || entry.type !== 'blob') return { kind: 'submodule' };
    if (entry.size > maxBytes) return { kind: 'too-large', bytes: entry.size };
    const bytes = await this.readBlob(entry.oid);
    if (!bytes) return { kind: 'missing' };
    const decoded = decodeText(bytes);
    if (!decoded) return { kind: 'binary', bytes: bytes.length };
    return { kind: 'text', text: decoded.text, bytes: bytes.length, invalidUtf8: decoded.invalidUtf8 };
  }
}

/** `dir` joined with a manifest's relative path, or undefined when it leaves the repository. */
export function joinInside(dir: string, relative: string): string | undefined {
  if (relative.startsWith('/')) return undefined;
  const joined = posix.normalize(posix.join(dir || '.', relative)).replace(/\/+$/, '');
  if (joined === '..' || joined.startsWith('../')) return undefined;
  return joined === '.' || joined === '' ? '' : joined;
}
