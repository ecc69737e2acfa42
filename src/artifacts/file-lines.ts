// Lines of a large file without holding it: runtime/listings.jsonl (a renderer's passes over the catalog) and a
// build's page inputs (the page carrier's thread) grow with the catalog.
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The lines of a file, each as a view of its bytes (valid until the next line is asked for), empty lines left out.
 * Read a chunk at a time, synchronously: a whole-catalog file never becomes one string, and a caller can hash a line
 * as it is stored and parse only the lines it needs (src/page-model/page-data.ts).
 */
export function* fileLines(path: string): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
    let start = 0;
    let end = 0;
    for (;;) {
      const newline = buffer.subarray(start, end).indexOf(10);
      if (newline >= 0) {
        const line = buffer.subarray(start, start + newline);
        start += newline + 1;
        if (line.length > 0) yield line;
        continue;
      }
      // No whole line left: the rest goes to the front, into a larger buffer where one line fills it.
      if (start > 0) {
        buffer.copy(buffer, 0, start, end);
        end -= start;
        start = 0;
      } else if (end === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, end);
        buffer = larger;
      }
      const read = readSync(fd, buffer, end, buffer.length - end, null);
      if (read === 0) {
        if (end > start) yield buffer.subarray(start, end);
        return;
      }
      end += read;
    }
  } finally {
    closeSync(fd);
  }
}
const LINE_CHUNK_BYTES = 1 << 20;
