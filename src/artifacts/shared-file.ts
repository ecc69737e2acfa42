// Reading a build's files into memory that threads can share. The shim's main thread and its keyword worker
// (server/search-runtime/keyword-thread.ts) search the same columns and postings: read once into SharedArrayBuffers and
// posted to the worker, they are one copy in memory, not two (docs/decisions/006-keyword-worker-thread.md).
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/** How a loader reads a whole file: readFileSync by default, or into shared memory (sharingReader). */
export type ReadFile = (path: string) => Buffer;

export const readFilePlain: ReadFile = (path) => readFileSync(path);

/** The whole file in a SharedArrayBuffer of its own (a Buffer over it from offset 0, so typed-array views align). */
export function readFileShared(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.from(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const read = readSync(fd, bytes, at, size - at, at);
      if (read === 0) throw new Error(`${path} was cut short while it was read (${at} of ${size} bytes)`);
      at += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** A reader that shares every file it reads, and the files it read by path, to hand to another thread. */
export function sharingReader(): { read: ReadFile; files: Map<string, Buffer> } {
  const files = new Map<string, Buffer>();
  return {
    files,
    read: (path) => {
      const bytes = readFileShared(path);
      files.set(path, bytes);
      return bytes;
    },
  };
}

/** A reader over files another thread shared (by path), reading any other file itself. */
export function sharedFilesReader(files: ReadonlyMap<string, Uint8Array>): ReadFile {
  return (path) => {
    const shared = files.get(path);
    return shared ? Buffer.from(shared.buffer, shared.byteOffset, shared.byteLength) : readFileSync(path);
  };
}
