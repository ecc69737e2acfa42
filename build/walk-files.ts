// The files of a directory tree, one at a time: a million-listing site has millions of files, and readdirSync's
// recursive list of them all is a whole-catalog array. Each directory is read in batches (opendirSync), so memory
// holds one batch per level, never a whole directory of a million pages. The reads are synchronous: an asynchronous
// walk costs a thread-pool round trip per batch and a promise per file through every level of the tree, several
// times the CPU of the reads themselves, and the site stage walks its tree several times.
import { opendirSync } from 'node:fs';
import { join } from 'node:path';

/** Entries read from the file system at once, per directory being read. */
const BATCH = 256;

/** Paths relative to `root` of every regular file under it, depth first. */
export function* walkFiles(root: string, relative = ''): Generator<string> {
  const dir = opendirSync(join(root, relative), { bufferSize: BATCH });
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      const path = relative ? join(relative, entry.name) : entry.name;
      if (entry.isDirectory()) yield* walkFiles(root, path);
      else if (entry.isFile()) yield path;
    }
  } finally {
    dir.closeSync();
  }
}
