// Reads a snapshot export line by line. JSON Lines is the format of data/; .gz is decompressed on the fly.
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';

export interface ExportLine {
  line: number;
  value?: unknown;
  parseError?: string;
}

export async function* readExportLines(path: string): AsyncGenerator<ExportLine> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    try {
      yield { line, value: JSON.parse(text) };
    } catch (error) {
      yield { line, parseError: `not JSON (${(error as Error).message})` };
    }
  }
}
