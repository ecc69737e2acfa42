// A file of named typed arrays with a JSON layout, read back as zero-copy views over one Buffer.
import { writeFileSync } from 'node:fs';
import { readFilePlain, type ReadFile } from './shared-file.ts';

type Column = Uint8Array | Uint32Array | Float32Array | Float64Array;
const CONSTRUCTORS = { Uint8Array, Uint32Array, Float32Array, Float64Array } as const;
export type ColumnKind = keyof typeof CONSTRUCTORS;

export interface ColumnLayout {
  [name: string]: { kind: ColumnKind; byteOffset: number; length: number };
}

export function writeColumns(path: string, columns: Record<string, Column>): ColumnLayout {
  const layout: ColumnLayout = {};
  let offset = 0;
  for (const [name, column] of Object.entries(columns)) {
    offset = Math.ceil(offset / 8) * 8;
    layout[name] = { kind: column.constructor.name as ColumnKind, byteOffset: offset, length: column.length };
    offset += column.byteLength;
  }
  const buffer = Buffer.alloc(Math.ceil(offset / 8) * 8);
  for (const [name, column] of Object.entries(columns)) {
    buffer.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), layout[name]!.byteOffset);
  }
  writeFileSync(path, buffer);
  return layout;
}

export function readColumns(path: string, layout: ColumnLayout, readFile: ReadFile = readFilePlain): Record<string, Column> {
  const file = readFile(path);
  // Typed-array views need aligned offsets: a file that owns its memory from offset 0 (a large or shared one) is
  // viewed as it is; one in Node's buffer pool may start anywhere and is copied into a fresh ArrayBuffer.
  let buffer: ArrayBufferLike = file.buffer;
  if (file.byteOffset !== 0 || file.buffer.byteLength !== file.byteLength) {
    buffer = new ArrayBuffer(file.byteLength);
    new Uint8Array(buffer).set(file);
  }
  const columns: Record<string, Column> = {};
  for (const [name, { kind, byteOffset, length }] of Object.entries(layout)) {
    // The cast is for TypeScript only: views over a SharedArrayBuffer are made and read the same way.
    columns[name] = new CONSTRUCTORS[kind](buffer as ArrayBuffer, byteOffset, length);
  }
  return columns;
}
