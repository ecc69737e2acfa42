// The files of a directory tree, one at a time: a million-listing site has millions of files, and readdirSync's
// recursive list of them all is a whole-catalog array. opendir reads each directory's entries in batches.
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Paths relative to `root` of every regular file under it, depth first. */
export async function* walkFiles(root: string, relative = ''): AsyncGenerator<string> {
  for await (const entry of await opendir(join(root, relative))) {
    const path = relative ? join(relative, entry.name) : entry.name;
    if (entry.isDirectory()) yield* walkFiles(root, path);
    else if (entry.isFile()) yield path;
  }
}
