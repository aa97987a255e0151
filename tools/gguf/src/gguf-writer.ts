import { ByteSink } from './byte-sink';
import { toFloat16Array } from './f16';
import { GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GGUF_VERSION, GgmlType, GgufValueType } from './gguf-format';

type KvWriter = (sink: ByteSink) => void;

interface PendingTensor {
  name: string;
  /** ggml order: dims[0] is the innermost (contiguous) dimension. */
  dims: number[];
  type: GgmlType;
  data: Uint8Array;
}

/** Collects metadata and tensors in insertion order, then serialises a GGUF v3 file. */
export class GgufWriter {
  private readonly kvs: Array<{ key: string; write: KvWriter }> = [];
  private readonly tensors: PendingTensor[] = [];
  private readonly keys = new Set<string>();

  constructor(private readonly alignment = GGUF_DEFAULT_ALIGNMENT) {}

  private add(key: string, type: GgufValueType, write: KvWriter): this {
    if (this.keys.has(key)) throw new Error(`duplicate GGUF key ${key}`);
    this.keys.add(key);
    this.kvs.push({
      key,
      write: (sink) => {
        sink.u32(type);
        write(sink);
      },
    });
    return this;
  }

  string(key: string, value: string): this {
    return this.add(key, GgufValueType.String, (s) => s.string(value));
  }
  u32(key: string, value: number): this {
    return this.add(key, GgufValueType.Uint32, (s) => s.u32(value));
  }
  f32(key: string, value: number): this {
    return this.add(key, GgufValueType.Float32, (s) => s.f32(value));
  }
  bool(key: string, value: boolean): this {
    return this.add(key, GgufValueType.Bool, (s) => s.u8(value ? 1 : 0));
  }
  stringArray(key: string, values: readonly string[]): this {
    return this.array(key, GgufValueType.String, values.length, (s) => values.forEach((v) => s.string(v)));
  }
  f32Array(key: string, values: ArrayLike<number>): this {
    return this.array(key, GgufValueType.Float32, values.length, (s) => Array.from(values).forEach((v) => s.f32(v)));
  }
  i32Array(key: string, values: ArrayLike<number>): this {
    return this.array(key, GgufValueType.Int32, values.length, (s) => Array.from(values).forEach((v) => s.i32(v)));
  }

  private array(key: string, itemType: GgufValueType, count: number, writeItems: KvWriter): this {
    return this.add(key, GgufValueType.Array, (s) => {
      s.u32(itemType);
      s.u64(count);
      writeItems(s);
    });
  }

  /** `dims` in ggml order (innermost first); `values.length` must equal their product. */
  tensor(name: string, dims: number[], values: Float32Array, type: GgmlType = GgmlType.F32): this {
    const count = dims.reduce((a, b) => a * b, 1);
    if (count !== values.length) throw new Error(`tensor ${name}: ${values.length} values for dims ${dims.join('x')}`);
    if (this.tensors.some((t) => t.name === name)) throw new Error(`duplicate tensor ${name}`);
    const typed = type === GgmlType.F16 ? toFloat16Array(values) : values;
    const data = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    this.tensors.push({ name, dims, type, data });
    return this;
  }

  toBuffer(): Buffer {
    const sink = new ByteSink();
    sink.u32(GGUF_MAGIC);
    sink.u32(GGUF_VERSION);
    sink.u64(this.tensors.length);
    sink.u64(this.kvs.length);
    for (const kv of this.kvs) {
      sink.string(kv.key);
      kv.write(sink);
    }
    let offset = 0;
    for (const t of this.tensors) {
      sink.string(t.name);
      sink.u32(t.dims.length);
      t.dims.forEach((d) => sink.u64(d));
      sink.u32(t.type);
      sink.u64(offset);
      offset += alignUp(t.data.byteLength, this.alignment);
    }
    sink.padTo(this.alignment);
    for (const t of this.tensors) {
      sink.bytes(t.data);
      sink.padTo(this.alignment);
    }
    return sink.toBuffer();
  }
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}
