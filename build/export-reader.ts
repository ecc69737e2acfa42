// Reads a snapshot export record by record. JSON Lines is the format of data/; the same records as one JSON
// array or one YAML list are read too. The format comes from the file name (.jsonl/.ndjson, .json,
// .yaml/.yml, each optionally .gz), else from the content; gzip is recognised by its magic bytes.
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import { createInterface } from 'node:readline';
import { LineCounter, parseDocument, isSeq } from 'yaml';

export interface ExportLine {
  /** Line of the file where the record starts (1-based). */
  line: number;
  value?: unknown;
  parseError?: string;
}

export type ExportFormat = 'jsonl' | 'json' | 'yaml';

const GZIP_MAGIC = [0x1f, 0x8b];

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

function formatFromName(path: string): ExportFormat | undefined {
  const name = path.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  if (name.endsWith('.json')) return 'json';
  if (name.endsWith('.yaml') || name.endsWith('.yml')) return 'yaml';
  return undefined;
}

/**
 * The format of a text by its first significant character: `[` is a JSON array, `{` JSON Lines (one object
 * per line), anything else (`-`, `---`, a comment) YAML.
 */
export function formatFromContent(head: string): ExportFormat {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) return 'jsonl';
  return 'yaml';
}

async function readHead(path: string, gzip: boolean): Promise<string> {
  const stream = gzip ? createReadStream(path).pipe(createGunzip()) : createReadStream(path, { end: 64 * 1024 });
  let head = '';
  for await (const chunk of stream) {
    head += (chunk as Buffer).toString('utf8');
    if (head.trim().length > 0 || head.length >= 64 * 1024) break;
  }
  stream.destroy();
  return head;
}

/** The export's format: by file name when it has a known extension, else by content. */
export async function detectExportFormat(path: string): Promise<ExportFormat> {
  return formatFromName(path) ?? formatFromContent(await readHead(path, isGzip(path)));
}

export async function* readExportLines(path: string): AsyncGenerator<ExportLine> {
  const raw = createReadStream(path);
  const input = isGzip(path) ? raw.pipe(createGunzip()) : raw;
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

async function readText(path: string): Promise<string> {
  const bytes = await readFile(path);
  return (isGzip(path) ? gunzipSync(bytes) : bytes).toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * The elements of a top-level JSON array as source slices with their starting line, found by one scan that
 * tracks strings and nesting, so one malformed element is reported on its own line instead of failing the file.
 */
export function* jsonArrayElements(text: string): Generator<{ line: number; source: string } | { line: number; error: string }> {
  let i = 0;
  let line = 1;
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      else if (c !== 32 && c !== 9 && c !== 13) break;
      i++;
    }
  };
  skipSpace();
  if (text[i] !== '[') {
    yield { line, error: 'not a JSON array' };
    return;
  }
  i++;
  for (;;) {
    skipSpace();
    if (i >= text.length) {
      yield { line, error: 'unterminated JSON array' };
      return;
    }
    if (text[i] === ']') break;
    const start = i;
    const startLine = line;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        else if (c === '\n') line++;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
      else if (c === '\n') line++;
    }
    yield { line: startLine, source: text.slice(start, i) };
    if (text[i] === ',') i++;
    else if (text[i] !== ']') {
      yield { line, error: 'unterminated JSON array' };
      return;
    }
  }
  i++;
  skipSpace();
  if (i < text.length) yield { line, error: 'unexpected text after the JSON array' };
}

async function* readJsonArray(path: string): AsyncGenerator<ExportLine> {
  for (const element of jsonArrayElements(await readText(path))) {
    if ('error' in element) {
      yield { line: element.line, parseError: element.error };
      continue;
    }
    try {
      yield { line: element.line, value: JSON.parse(element.source) };
    } catch (error) {
      yield { line: element.line, parseError: `not JSON (${(error as Error).message})` };
    }
  }
}

async function* readYamlList(path: string): AsyncGenerator<ExportLine> {
  const lineCounter = new LineCounter();
  // Duplicate keys are errors, as a record with two values for one field is ambiguous.
  const doc = parseDocument(await readText(path), { lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const error of doc.errors) yield { line: error.linePos?.[0].line ?? 1, parseError: `not YAML (${error.message.split('\n')[0]})` };
    return;
  }
  if (!isSeq(doc.contents)) {
    yield { line: 1, parseError: 'not a YAML list of records' };
    return;
  }
  for (const item of doc.contents.items) {
    const offset = (item as { range?: [number, number, number] }).range?.[0] ?? 0;
    const line = lineCounter.linePos(offset).line;
    yield { line, value: (item as { toJSON(doc: unknown): unknown }).toJSON(doc) };
  }
}

/** Every record of an export, whatever its format, with the line it starts on. */
export async function* readExport(path: string, format?: ExportFormat): AsyncGenerator<ExportLine> {
  switch (format ?? (await detectExportFormat(path))) {
    case 'jsonl':
      yield* readExportLines(path);
      return;
    case 'json':
      yield* readJsonArray(path);
      return;
    case 'yaml':
      yield* readYamlList(path);
      return;
  }
}
