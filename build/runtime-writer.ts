// The one writer of a build's runtime/ (what the shim loads): the index and embeddings stages put every file there
// through it. It refuses paths outside runtime/, creates the folders, and records the runtime manifest
// (manifest.json), checked against its schema: the file whose presence marks the runtime complete
// (src/artifacts/build-dirs.ts), so the index stage records it after its last file.
import { createWriteStream, mkdirSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { linkOrCopy } from '../src/artifacts/link-file.ts';
import {
  RUNTIME_MANIFEST_FILE,
  RuntimeManifestSchema,
  writeRuntimeColumns,
  type RuntimeColumns,
  type RuntimeManifest,
} from '../src/artifacts/runtime-manifest.ts';
import { pathInside } from './path-inside.ts';

export class RuntimeWriter {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
    mkdirSync(root, { recursive: true });
  }

  /** The full path of `relative` inside runtime/, its folder created; refuses anything outside. */
  path(relative: string): string {
    const full = join(this.root, pathInside(relative, 'runtime'));
    mkdirSync(dirname(full), { recursive: true });
    return full;
  }

  write(relative: string, body: string | NodeJS.ArrayBufferView): void {
    writeFileSync(this.path(relative), body);
  }

  /** A file written piece by piece (listings.jsonl: one line per listing, never held whole). */
  stream(relative: string): WriteStream {
    return createWriteStream(this.path(relative));
  }

  /**
   * An empty folder inside runtime/ for a format whose own module writes it (the keyword index, vectors, the HNSW
   * graph: src/search/); whatever was there is removed.
   */
  folder(relative: string): string {
    const full = this.path(relative);
    rmSync(full, { recursive: true, force: true });
    mkdirSync(full, { recursive: true });
    return full;
  }

  /** Hard-links every file of a directory tree into runtime/ (copies where linking is not possible). */
  async linkTree(from: string, relative: string): Promise<void> {
    const to = this.path(relative);
    await mkdir(to, { recursive: true });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (entry.isDirectory()) await this.linkTree(join(from, entry.name), join(relative, entry.name));
      else if (entry.isFile()) await linkOrCopy(join(from, entry.name), join(to, entry.name));
    }
  }

  /** The numeric columns (columns.bin); returns their layout for the manifest. */
  columns(columns: RuntimeColumns): RuntimeManifest['columns'] {
    return writeRuntimeColumns(this.root, columns);
  }

  /** Records the manifest, after every other file of the stage that makes it. */
  recordManifest(manifest: RuntimeManifest): void {
    RuntimeManifestSchema.parse(manifest);
    this.write(RUNTIME_MANIFEST_FILE, JSON.stringify(manifest));
  }
}
