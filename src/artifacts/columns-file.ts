// A file of named typed arrays with a JSON layout, read back as zero-copy views over one Buffer.
import { readFileSync, writeFileSync } from 'node:fs';

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

export function readColumns(path: string, layout: ColumnLayout): Record<string, Column> {
  const file = readFileSync(path);
  // Copy into a fresh, 8-byte aligned ArrayBuffer: Buffer pools may start at any offset.
  const buffer = new ArrayBuffer(file.byteLength);
  new Uint8Array(buffer).set(file);
  const columns: Record<string, Column> = {};
  for (const [name, { kind, byteOffset, length }] of Object.entries(layout)) {
    columns[name] = new CONSTRUCTORS[kind](buffer, byteOffset, length);
  }
  return columns;
}
