// A JSON Lines file read by line number without holding it: one pass records where each line starts, and a line is
// read back with one positioned read. The collector keeps large exports (the previous collection's, an export
// source's, the merge's own output) this way, so its memory follows the number of listings, not their bytes.
import { closeSync, createReadStream, openSync, readSync, writeSync } from 'node:fs';

export class LineFile {
  readonly path: string;
  private readonly starts: number[];
  private readonly lengths: number[];
  private fd: number | undefined;

  private constructor(path: string, starts: number[], lengths: number[]) {
    this.path = path;
    this.starts = starts;
    this.lengths = lengths;
  }

  /** Indexes every non-blank line of `path`. */
  static async open(path: string): Promise<LineFile> {
    const starts: number[] = [];
    const lengths: number[] = [];
    // A line is blank when it holds only spaces, tabs or a CR: a record line starts with `{` at once, so the scan
    // for a non-blank byte stops at its first byte.
    const isBlank = (bytes: Buffer, from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const byte = bytes[i]!;
        if (byte !== 0x20 && byte !== 0x0d && byte !== 0x09) return false;
      }
      return true;
    };
    let offset = 0;
    let lineStart = 0;
    let pendingBlank = true;
    for await (const chunk of createReadStream(path)) {
      const bytes = chunk as Buffer;
      let from = 0;
      for (let newline = bytes.indexOf(0x0a, from); newline >= 0; newline = bytes.indexOf(0x0a, from)) {
        const blank = pendingBlank && isBlank(bytes, from, newline);
        if (!blank) {
          starts.push(lineStart);
          lengths.push(offset + newline - lineStart);
        }
        lineStart = offset + newline + 1;
        pendingBlank = true;
        from = newline + 1;
      }
      pendingBlank &&= isBlank(bytes, from, bytes.length);
      offset += bytes.length;
    }
    if (!pendingBlank) {
      starts.push(lineStart);
      lengths.push(offset - lineStart);
    }
    return new LineFile(path, starts, lengths);
  }

  get count(): number {
    return this.starts.length;
  }

  read(index: number): string {
    this.fd ??= openSync(this.path, 'r');
    const buffer = Buffer.allocUnsafe(this.lengths[index]!);
    readSync(this.fd, buffer, 0, buffer.length, this.starts[index]!);
    return buffer.toString('utf8').replace(/\r$/, '');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Lines appended to a file and read back by the handle `append` returned (the merge's output, see merge.ts). */
export class Spool {
  readonly path: string;
  private readonly fd: number;
  private offset = 0;

  constructor(path: string) {
    this.path = path;
    this.fd = openSync(path, 'w+');
  }

  append(text: string): { offset: number; length: number } {
    const bytes = Buffer.from(text, 'utf8');
    writeSync(this.fd, bytes, 0, bytes.length, this.offset);
    const at = { offset: this.offset, length: bytes.length };
    this.offset += bytes.length;
    return at;
  }

  read(at: { offset: number; length: number }): string {
    const buffer = Buffer.allocUnsafe(at.length);
    readSync(this.fd, buffer, 0, at.length, at.offset);
    return buffer.toString('utf8');
  }

  close(): void {
    closeSync(this.fd);
  }
}
