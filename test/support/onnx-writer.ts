// A minimal ONNX (protobuf) writer for the static-embedding graph. Field numbers are those of
// onnx/onnx.proto3; only what this graph needs is encoded, so no protobuf dependency is required.

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

const DATA_TYPE = { FLOAT: 1, INT64: 7 } as const;
const ATTR_TYPE = { INT: 2, INTS: 7 } as const;

class Writer {
  private chunks: Uint8Array[] = [];
  length = 0;

  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.length += b.length;
  }

  private varint(v: number): void {
    // Non-negative integers below 2^53 only, which is all this file needs.
    const bytes: number[] = [];
    while (v >= 0x80) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    this.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  int(field: number, v: number): this {
    this.tag(field, WIRE_VARINT);
    this.varint(v);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(b.length);
    this.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, w: Writer): this {
    return this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

type Dim = number | string;

function valueInfo(name: string, elemType: number, dims: Dim[]): Writer {
  const shape = new Writer();
  for (const d of dims) {
    const dim = new Writer();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new Writer().int(1, elemType).message(2, shape);
  const type = new Writer().message(1, tensorType);
  return new Writer().string(1, name).message(2, type);
}

function node(opType: string, name: string, inputs: string[], outputs: string[], attrs: Writer[] = []): Writer {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  w.string(3, name).string(4, opType);
  for (const a of attrs) w.message(5, a);
  return w;
}

function intAttr(name: string, v: number): Writer {
  return new Writer().string(1, name).int(3, v).int(20, ATTR_TYPE.INT);
}

function tensor(name: string, dataType: number, dims: number[], raw: Uint8Array): Writer {
  const w = new Writer();
  for (const d of dims) w.int(1, d);
  return w.int(2, dataType).string(8, name).bytes(9, raw);
}

function int64Raw(values: number[]): Uint8Array {
  const b = new Uint8Array(values.length * 8);
  const dv = new DataView(b.buffer);
  values.forEach((v, i) => dv.setBigInt64(i * 8, BigInt(v), true));
  return b;
}

function float32Raw(values: Float32Array): Uint8Array {
  // Little-endian on every platform ONNX Runtime ships for; copy through DataView to be explicit.
  const b = new Uint8Array(values.length * 4);
  const dv = new DataView(b.buffer);
  for (let i = 0; i < values.length; i++) dv.setFloat32(i * 4, values[i]!, true);
  return b;
}

/**
 * The static embedding model: last_hidden_state[b, s, :] = table[input_ids[b, s], :] *
 * attention_mask[b, s]. Mean pooling in the feature-extraction pipeline then averages the rows;
 * since the rows carry their IDF weight, the average is IDF-weighted.
 */
export function staticEmbeddingOnnx(table: Float32Array, vocabSize: number, dims: number, producerVersion: string): Uint8Array {
  if (table.length !== vocabSize * dims) throw new Error('embedding table size does not match vocab × dims');
  const graph = new Writer();
  graph.message(1, node('Gather', 'embed', ['embeddings', 'input_ids'], ['gathered'], [intAttr('axis', 0)]));
  graph.message(1, node('Cast', 'mask_float', ['attention_mask'], ['mask_f'], [intAttr('to', DATA_TYPE.FLOAT)]));
  graph.message(1, node('Unsqueeze', 'mask_expand', ['mask_f', 'unsqueeze_axes'], ['mask_3d']));
  graph.message(1, node('Mul', 'apply_mask', ['gathered', 'mask_3d'], ['last_hidden_state']));
  graph.string(2, 'catalog_static_embedding');
  graph.message(5, tensor('embeddings', DATA_TYPE.FLOAT, [vocabSize, dims], float32Raw(table)));
  graph.message(5, tensor('unsqueeze_axes', DATA_TYPE.INT64, [1], int64Raw([-1])));
  graph.message(11, valueInfo('input_ids', DATA_TYPE.INT64, ['batch_size', 'sequence_length']));
  graph.message(11, valueInfo('attention_mask', DATA_TYPE.INT64, ['batch_size', 'sequence_length']));
  graph.message(12, valueInfo('last_hidden_state', DATA_TYPE.FLOAT, ['batch_size', 'sequence_length', dims]));
  const opset = new Writer().string(1, '').int(2, 13);
  return new Writer()
    .int(1, 8) // ir_version 8 (ONNX 1.10+), well inside what onnxruntime-node 1.x accepts
    .string(2, 'catalog-train-static-model')
    .string(3, producerVersion)
    .message(7, graph)
    .message(8, opset)
    .finish();
}
